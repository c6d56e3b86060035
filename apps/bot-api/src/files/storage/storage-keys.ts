import { createHash, randomUUID } from 'node:crypto';

/** Who an upload belongs to: a bot (bot-token routes) or an end user (client routes). */
export type FileOwner = { kind: 'bot'; botId: string } | { kind: 'user'; userId: string };

const KEY_PATTERN =
  /^(bots|users)\/[A-Za-z0-9_-]{1,64}\/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * A fresh storage key: the owner's prefix (a user id is hashed, as it may hold any character) and a
 * random UUID, so no owner can guess, and therefore neither overwrite nor read, another's object.
 */
export function newStorageKey(owner: FileOwner): string {
  return `${ownerPrefix(owner)}${randomUUID()}`;
}

function ownerPrefix(owner: FileOwner): string {
  return owner.kind === 'bot'
    ? `bots/${owner.botId}/`
    : `users/${createHash('sha256').update(owner.userId).digest('hex').slice(0, 32)}/`;
}

/** Whether the text has the shape newStorageKey gives; checked before a key reaches a path or a bucket. */
export function isStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** Keys travel in one URL path segment. */
export function encodeKeySegment(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeKeySegment(segment: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,700}$/.test(segment)) return null;
  const key = Buffer.from(segment, 'base64url').toString('utf8');
  return isStorageKey(key) ? key : null;
}

/** Whether the key was made for this owner (its prefix), whatever became of its upload row. */
export function keyBelongsTo(key: string, owner: FileOwner): boolean {
  return isStorageKey(key) && key.startsWith(ownerPrefix(owner));
}
