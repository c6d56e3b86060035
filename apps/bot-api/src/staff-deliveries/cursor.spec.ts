import { ApiError } from '@app/envelope';
import { assertWindow, decodeCursor, encodeCursor } from './cursor';

describe('keyset cursors of the staff routes', () => {
  it('round-trips a microsecond timestamp and an id unchanged', () => {
    const at = '2026-01-01T02:10:00.123456Z';
    const id = '6a0b7c1e-0000-4000-8000-000000000000';
    expect(decodeCursor(encodeCursor(at, id))).toEqual({ at, id });
    expect(decodeCursor(encodeCursor(at, '42'))).toEqual({ at, id: '42' });
  });

  it('reads no cursor as the first page', () => {
    expect(decodeCursor(undefined)).toBeNull();
  });

  it.each([
    ['not base64 of a cursor', 'bm9wZQ'],
    ['a bad time', Buffer.from('yesterday|42').toString('base64url')],
    ['a bad id', Buffer.from("2026-01-01T00:00:00Z|1' OR 1=1").toString('base64url')],
    ['extra parts', Buffer.from('2026-01-01T00:00:00Z|42|x').toString('base64url')],
  ])('refuses %s with 400', (_, cursor) => {
    expect(() => decodeCursor(cursor)).toThrow(ApiError);
    try {
      decodeCursor(cursor);
    } catch (error) {
      expect((error as ApiError).status).toBe(400);
    }
  });

  it('refuses a window whose start is not before its end', () => {
    expect(() => assertWindow('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z')).toThrow(ApiError);
    expect(() => assertWindow('2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')).toThrow(ApiError);
    expect(() => assertWindow('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')).not.toThrow();
    expect(() => assertWindow(undefined, '2026-01-02T00:00:00Z')).not.toThrow();
  });
});
