import { isUuid } from '@app/platform';
import { BotErrors } from '../bot-errors';

/** An opaque keyset cursor: a point in time and the id that breaks ties, base64url-encoded. */
export function encodeCursor(at: string, id: string): string {
  return Buffer.from(`${at}|${id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | undefined): { at: string; id: string } | null {
  if (cursor === undefined) return null;
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !id || !Number.isFinite(Date.parse(at))) throw invalidCursor();
  if (!isUuid(id) && !/^\d{1,18}$/.test(id)) throw invalidCursor();
  return { at, id };
}

const invalidCursor = () =>
  BotErrors.invalid('cursor is not one this API returned', [{ field: 'cursor', problem: 'unknown cursor' }]);

export function assertWindow(since: string | undefined, until: string | undefined): void {
  if (since && until && Date.parse(since) >= Date.parse(until)) {
    throw BotErrors.invalid('since must be before until', [{ field: 'since', problem: 'must be before until' }]);
  }
}
