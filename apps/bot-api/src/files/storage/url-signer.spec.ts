import { UrlSigner } from './url-signer';
import { decodeKeySegment, encodeKeySegment, isStorageKey, keyBelongsTo, newStorageKey } from './storage-keys';

const KEY = '00'.repeat(32);

describe('UrlSigner', () => {
  const signer = new UrlSigner(KEY);
  const grant = { method: 'PUT' as const, key: 'bots/b1/k', size: 10, type: 'image/png', expires: 2000000000 };

  it('accepts the signature of the same grant and refuses any changed field', () => {
    const signature = signer.sign(grant);
    expect(signer.verify(grant, signature)).toBe(true);
    expect(signer.verify({ ...grant, key: 'bots/b1/other' }, signature)).toBe(false);
    expect(signer.verify({ ...grant, size: 11 }, signature)).toBe(false);
    expect(signer.verify({ ...grant, type: 'image/gif' }, signature)).toBe(false);
    expect(signer.verify({ ...grant, expires: grant.expires + 1 }, signature)).toBe(false);
    expect(signer.verify({ ...grant, method: 'GET', size: null }, signature)).toBe(false);
    expect(signer.verify(grant, signature.slice(1))).toBe(false);
    expect(new UrlSigner('11'.repeat(32)).verify(grant, signature)).toBe(false);
  });
});

describe('storage keys', () => {
  it('puts a random key under its owner, hashing user ids, and round-trips it through a URL segment', () => {
    const bot = newStorageKey({ kind: 'bot', botId: 'abc123' });
    const user = newStorageKey({ kind: 'user', userId: 'alice@example.com/../x' });
    expect(bot).toMatch(/^bots\/abc123\/[0-9a-f-]{36}$/);
    expect(user).toMatch(/^users\/[0-9a-f]{32}\/[0-9a-f-]{36}$/);
    expect(newStorageKey({ kind: 'bot', botId: 'abc123' })).not.toBe(bot);
    expect(decodeKeySegment(encodeKeySegment(user))).toBe(user);
    expect(keyBelongsTo(bot, { kind: 'bot', botId: 'abc123' })).toBe(true);
    expect(keyBelongsTo(bot, { kind: 'bot', botId: 'abc12' })).toBe(false);
    expect(keyBelongsTo(user, { kind: 'user', userId: 'alice@example.com/../x' })).toBe(true);
    expect(keyBelongsTo(user, { kind: 'user', userId: 'bob' })).toBe(false);
  });

  it('refuses anything that could leave the storage directory', () => {
    expect(isStorageKey('bots/../../etc/passwd')).toBe(false);
    expect(decodeKeySegment(encodeKeySegment('bots/a/../../x'))).toBeNull();
    expect(decodeKeySegment('not base64url!')).toBeNull();
  });
});
