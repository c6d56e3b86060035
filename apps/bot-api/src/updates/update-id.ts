import { createHash, randomUUID } from 'node:crypto';
import { isMessageUpdateType, UpdateType } from '../update-types';

/** Fixed namespace of this service's name-based update ids; changing it would change every derived id. */
export const UPDATE_ID_NAMESPACE = 'b7d6c1a2-5f43-4e8a-9c0d-2f1e3a4b5c6d';

function uuidBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`not a UUID: ${uuid}`);
  return Buffer.from(hex, 'hex');
}

/** RFC 9562 version 5 (SHA-1, name-based) UUID. */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Message-like Updates get `uuidv5(bot_id:message_id:type)`, so the same event written twice (retry,
 * second instance) collapses onto one row; every other type gets a random UUID.
 */
export function updateIdFor(botId: string, type: UpdateType, messageId?: number): string {
  if (isMessageUpdateType(type)) {
    if (messageId === undefined) throw new Error(`an Update of type ${type} needs its message id`);
    return uuidV5(`${botId}:${messageId}:${type}`, UPDATE_ID_NAMESPACE);
  }
  return randomUUID();
}
