import { updateIdFor, UPDATE_ID_NAMESPACE, uuidV5 } from './update-id';

describe('update ids', () => {
  it('computes the RFC test vector of UUID v5 (DNS namespace, www.example.com)', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });

  it('derives message update ids deterministically from bot id, message id and type', () => {
    const id = updateIdFor('a'.repeat(24), 'photo', 42);
    expect(id).toBe(uuidV5(`${'a'.repeat(24)}:42:photo`, UPDATE_ID_NAMESPACE));
    expect(updateIdFor('a'.repeat(24), 'photo', 42)).toBe(id);
    expect(updateIdFor('a'.repeat(24), 'message', 42)).not.toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('gives edited_message and other non-message kinds a fresh random UUID each time', () => {
    const first = updateIdFor('b'.repeat(24), 'edited_message', 7);
    expect(first).not.toBe(updateIdFor('b'.repeat(24), 'edited_message', 7));
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
  });

  it('refuses a message update id without a message id', () => {
    expect(() => updateIdFor('c'.repeat(24), 'location')).toThrow(/message id/);
  });
});
