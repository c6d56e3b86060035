import type { VirtualMemberAction } from './virtual-member-audit.store';

const FIELDS: Record<VirtualMemberAction, readonly string[]> = {
  create: ['chat_id', 'name'],
  list: ['chat_id', 'page', 'pageSize'],
  send: ['chat_id', 'virtual_member_id', 'type', 'text'],
};
const KEPT_CHARACTERS = 1000;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What the audit log keeps of a call's parameters, valid or not: the operation's fields as given
 * (strings cut to 1000 characters, with `text_length` for the text), and the names of fields it does not take.
 */
export function auditRequest(action: VirtualMemberAction, body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) return { body_type: Array.isArray(body) ? 'array' : typeof body };
  const kept: Record<string, unknown> = {};
  for (const field of FIELDS[action]) {
    const value = body[field];
    if (value === undefined) continue;
    kept[field] = typeof value === 'string' ? value.slice(0, KEPT_CHARACTERS) : value;
  }
  if (typeof body.text === 'string' && action === 'send') kept.text_length = body.text.length;
  const unknown = Object.keys(body).filter((key) => !FIELDS[action].includes(key));
  if (unknown.length > 0) kept.unknown_fields = unknown.slice(0, 20);
  return kept;
}

/** A string field of the raw body, for the log's own columns; anything else is left out. */
export function stringField(body: unknown, field: string): string | null {
  if (!isPlainObject(body)) return null;
  const value = body[field];
  return typeof value === 'string' ? value.slice(0, 200) : null;
}
