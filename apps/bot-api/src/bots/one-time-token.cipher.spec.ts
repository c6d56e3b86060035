import { OneTimeTokenCipher } from './one-time-token.cipher';

const KEY = 'a'.repeat(64);

describe('OneTimeTokenCipher', () => {
  const cipher = new OneTimeTokenCipher(KEY);

  it('round-trips a token for the bot it was sealed for', () => {
    const sealed = cipher.encrypt('0123456789abcdef01234567', 'sbot_secret');
    expect(sealed).not.toContain('sbot_secret');
    expect(cipher.decrypt('0123456789abcdef01234567', sealed)).toBe('sbot_secret');
  });

  it('uses a fresh IV so the same token never encrypts to the same text', () => {
    expect(cipher.encrypt('b1', 'same')).not.toBe(cipher.encrypt('b1', 'same'));
  });

  it('refuses to open a ciphertext under another bot id', () => {
    const sealed = cipher.encrypt('bot-a', 'sbot_secret');
    expect(() => cipher.decrypt('bot-b', sealed)).toThrow();
  });

  it('refuses a ciphertext under another key', () => {
    const sealed = cipher.encrypt('bot-a', 'sbot_secret');
    expect(() => new OneTimeTokenCipher('b'.repeat(64)).decrypt('bot-a', sealed)).toThrow();
  });

  it('rejects a key that is not 32 bytes', () => {
    expect(() => new OneTimeTokenCipher('abcd')).toThrow();
  });
});
