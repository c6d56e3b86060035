import type { VirtualMemberAction } from './virtual-member-audit.store';

const FIELDS: Record<VirtualMemberAction, readonly string[]> = {
  create: ['chat_id', 'name'],
  list: ['chat_id', 'page', 'pageSize'],
  send: ['chat_id', 'virtual_member_id', 'type', 'text'],
};
/** The longest text a call may send is kept whole; any other string is an id or a name. */
const KEPT_TEXT_CHARACTERS = 1000;
const KEPT_CHARACTERS = 200;
const KEPT_FIELD_NAMES = 20;
const KEPT_NAME_CHARACTERS = 64;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A value as the log keeps it: strings cut, numbers and booleans as given, anything nested only by its
 * kind, so no body (up to BODY_LIMIT of JSON) is ever stored whole.
 */
function summary(field: string, value: unknown): unknown {
  if (typeof value === 'string') return value.slice(0, field === 'text' ? KEPT_TEXT_CHARACTERS : KEPT_CHARACTERS);
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  return { type: Array.isArray(value) ? 'array' : typeof value };
}

/**
 * What the audit log keeps of a call's parameters, valid or not: a bounded summary of the operation's
 * fields (texts cut to 1000 characters, other strings to 200, nested values by their kind only, with
 * `text_length` for the text), and the names of at most 20 fields it does not take, cut to 64 characters.
 */
export function auditRequest(action: VirtualMemberAction, body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) return { body_type: Array.isArray(body) ? 'array' : typeof body };
  const kept: Record<string, unknown> = {};
  for (const field of FIELDS[action]) {
    const value = body[field];
    if (value !== undefined) kept[field] = summary(field, value);
  }
  if (typeof body.text === 'string' && action === 'send') kept.text_length = body.text.length;
  const unknown = Object.keys(body).filter((key) => !FIELDS[action].includes(key));
  if (unknown.length > 0) {
    kept.unknown_fields = unknown.slice(0, KEPT_FIELD_NAMES).map((name) => name.slice(0, KEPT_NAME_CHARACTERS));
  }
  return kept;
}

/** A string field of the raw body, for the log's own columns; anything else is left out. */
export function stringField(body: unknown, field: string): string | null {
  if (!isPlainObject(body)) return null;
  const value = body[field];
  return typeof value === 'string' ? value.slice(0, 200) : null;
}
