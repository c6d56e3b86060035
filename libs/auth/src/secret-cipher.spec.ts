import { SecretCipher } from './secret-cipher';

const KEY = 'a'.repeat(64);

describe('SecretCipher', () => {
  const cipher = new SecretCipher(KEY);

  it('round-trips a secret without keeping the plaintext in the sealed form', () => {
    const sealed = cipher.encrypt('0123456789abcdef01234567', 'sbot_secret');
    expect(sealed).not.toContain('sbot_secret');
    expect(cipher.decrypt('0123456789abcdef01234567', sealed)).toBe('sbot_secret');
  });

  it('uses a fresh IV so the same secret never encrypts to the same text', () => {
    expect(cipher.encrypt('b1', 'same')).not.toBe(cipher.encrypt('b1', 'same'));
  });

  it('refuses to open a ciphertext under another context, such as another bot id', () => {
    const sealed = cipher.encrypt('bot-a', 'sbot_secret');
    expect(() => cipher.decrypt('bot-b', sealed)).toThrow();
  });

  it('refuses a ciphertext under another key, and a tampered one', () => {
    const sealed = cipher.encrypt('bot-a', 'sbot_secret');
    expect(() => new SecretCipher('b'.repeat(64)).decrypt('bot-a', sealed)).toThrow();
    const [version, iv, tag, body] = sealed.split(':');
    const flipped = Buffer.from(body, 'base64');
    flipped[0] ^= 1;
    expect(() => cipher.decrypt('bot-a', [version, iv, tag, flipped.toString('base64')].join(':'))).toThrow();
  });

  it('refuses a sealed form of another version or with a part missing, before decrypting anything', () => {
    const [, iv, tag, body] = cipher.encrypt('bot-a', 'sbot_secret').split(':');
    for (const sealed of [
      `v2:${iv}:${tag}:${body}`,
      `v1::${tag}:${body}`,
      `v1:${iv}::${body}`,
      `v1:${iv}:${tag}:`,
      `v1:${iv}:${tag}`,
    ]) {
      expect(() => cipher.decrypt('bot-a', sealed)).toThrow('unrecognised secret ciphertext');
    }
  });

  it('writes the version, IV, tag and body as four colon-separated parts, a 12-byte IV and a 16-byte tag', () => {
    const [version, iv, tag, body] = cipher.encrypt('bot-a', 'sbot_secret').split(':');
    expect(version).toBe('v1');
    expect(Buffer.from(iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(tag, 'base64')).toHaveLength(16);
    expect(Buffer.from(body, 'base64')).toHaveLength('sbot_secret'.length);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretCipher('abcd')).toThrow(/32 bytes/);
  });

  it('refuses a sealed secret whose tag was cut short, though the shorter tag is a prefix of the true one (defect 10)', () => {
    const sealed = cipher.encrypt('bot-a', 'sbot_secret');
    const [version, iv, tag, body] = sealed.split(':');
    const short = Buffer.from(tag, 'base64').subarray(0, 4).toString('base64');
    expect(() => cipher.decrypt('bot-a', [version, iv, short, body].join(':'))).toThrow();
  });
});
