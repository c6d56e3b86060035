import { ApiError } from '@app/envelope';
import { createHash } from 'node:crypto';
import {
  ensureClaimHeld,
  failureDisposition,
  isAbsentKey,
  judgeStoredKey,
  KEY_PATTERN,
  keyInUse,
  keyOfRequest,
  keyReused,
  requestFingerprint,
  routeOf,
  scopeOf,
  StoredKey,
} from './idempotency-decisions';

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('requestFingerprint', () => {
  const body = Buffer.from('{"item":"a"}');

  it('is the SHA-256 of "METHOD path", a newline and the raw body', () => {
    const expected = createHash('sha256').update('POST /orders/1\n{"item":"a"}').digest('hex');
    expect(requestFingerprint('POST', '/orders/1', body)).toBe(expected);
  });

  it('tells apart the same body sent to another path of a parameterised route', () => {
    expect(requestFingerprint('POST', '/orders/1', body)).not.toBe(requestFingerprint('POST', '/orders/2', body));
  });

  it('tells apart another method on the same path', () => {
    expect(requestFingerprint('POST', '/orders', body)).not.toBe(requestFingerprint('PUT', '/orders', body));
  });

  it('ignores the letter case of the method', () => {
    expect(requestFingerprint('post', '/orders', body)).toBe(requestFingerprint('POST', '/orders', body));
  });

  it('tells apart bodies, and takes a missing body as an empty one', () => {
    expect(requestFingerprint('POST', '/orders', body)).not.toBe(
      requestFingerprint('POST', '/orders', Buffer.from('{}')),
    );
    expect(requestFingerprint('POST', '/orders', undefined)).toBe(
      requestFingerprint('POST', '/orders', Buffer.alloc(0)),
    );
  });
});

describe('routeOf', () => {
  it('names a route by its method and pattern, so /orders/1 and /orders/2 are one route', () => {
    expect(routeOf('POST', '/orders/:id', '/orders/1')).toBe('POST /orders/:id');
  });

  it('falls back to the path when the route has no pattern', () => {
    expect(routeOf('PUT', undefined, '/orders/1')).toBe('PUT /orders/1');
  });
});

describe('keyOfRequest', () => {
  it.each([undefined, null, ''])('counts %p as no key', (raw) => {
    expect(isAbsentKey(raw)).toBe(true);
  });

  it('counts a blank or zero-like key as a key', () => {
    expect(isAbsentKey(' ')).toBe(false);
    expect(isAbsentKey(0)).toBe(false);
  });

  it.each([undefined, null, ''])(
    'refuses a missing key (%p) on a required-key route with 400 naming the key',
    (raw) => {
      const error = refusal(() => keyOfRequest(raw, true, 'idempotencyKey'));
      expect(error.status).toBe(400);
      expect(error.message).toBe('idempotencyKey is required');
      expect(error.details).toEqual([{ field: 'idempotencyKey', problem: 'is required' }]);
    },
  );

  it.each([undefined, null, ''])('runs an optional-key route without a key (%p)', (raw) => {
    expect(keyOfRequest(raw, false, 'Idempotency-Key')).toBeUndefined();
  });

  it('returns a well-formed key', () => {
    expect(keyOfRequest('order-1 ~', true, 'Idempotency-Key')).toBe('order-1 ~');
    expect(keyOfRequest('k'.repeat(255), false, 'Idempotency-Key')).toBe('k'.repeat(255));
    expect(keyOfRequest(' ', true, 'Idempotency-Key')).toBe(' ');
  });

  it.each([
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a control character', 'a\nb'],
    ['a character after ~', 'a\x7fb'],
    ['a non-ASCII character', 'clé'],
    ['a number', 42],
    ['an array of keys', ['a', 'b']],
  ])('refuses %s with 400, on an optional-key route too', (_what, raw) => {
    for (const required of [true, false]) {
      const error = refusal(() => keyOfRequest(raw, required, 'Idempotency-Key'));
      expect(error.status).toBe(400);
      expect(error.message).toBe('Idempotency-Key must be 1-255 printable characters');
      expect(error.details).toEqual([{ field: 'Idempotency-Key', problem: 'must be 1-255 printable characters' }]);
    }
  });

  it('documents the same pattern it enforces', () => {
    expect(KEY_PATTERN.source).toBe('^[\\x20-\\x7e]{1,255}$');
  });
});

describe('scopeOf', () => {
  it('scopes a key to the authenticated tenant', () => {
    expect(scopeOf('tenant-a')).toBe('tenant-a');
  });

  it.each([undefined, ''])('refuses to run an idempotent route without a tenant (%p)', (tenant) => {
    expect(() => scopeOf(tenant)).toThrow('idempotent route without an authenticated tenant');
  });
});

describe('judgeStoredKey', () => {
  const stored = (over: Partial<StoredKey> = {}): StoredKey => ({
    route: 'POST /orders',
    fingerprint: 'f1',
    status: 'completed',
    stale: false,
    response_status: 201,
    response_body: '{"data":1}',
    ...over,
  });

  it('replays the stored answer of the same request', () => {
    expect(judgeStoredKey(stored(), 'POST /orders', 'f1')).toEqual({ kind: 'replay', status: 201, body: '{"data":1}' });
  });

  it('replays a completed record without a stored answer as an empty 200', () => {
    expect(judgeStoredKey(stored({ response_status: null, response_body: null }), 'POST /orders', 'f1')).toEqual({
      kind: 'replay',
      status: 200,
      body: '',
    });
  });

  it('answers reused for another fingerprint or another route, completed or running', () => {
    for (const status of ['completed', 'in_progress'] as const) {
      expect(judgeStoredKey(stored({ status }), 'POST /orders', 'f2')).toEqual({ kind: 'reused' });
      expect(judgeStoredKey(stored({ status }), 'PUT /orders', 'f1')).toEqual({ kind: 'reused' });
      expect(judgeStoredKey(stored({ status, stale: true }), 'POST /orders', 'f2')).toEqual({ kind: 'reused' });
    }
  });

  it('answers in use while the same request runs, and take-over once its claim outlived the lock timeout', () => {
    expect(judgeStoredKey(stored({ status: 'in_progress' }), 'POST /orders', 'f1')).toEqual({ kind: 'in-use' });
    expect(judgeStoredKey(stored({ status: 'in_progress', stale: true }), 'POST /orders', 'f1')).toEqual({
      kind: 'take-over',
    });
  });

  it('replays a completed answer even when its old claim time counts as stale', () => {
    expect(judgeStoredKey(stored({ stale: true }), 'POST /orders', 'f1').kind).toBe('replay');
  });
});

describe('the 409 answers', () => {
  it('answers a reused key with IDEMPOTENCY_KEY_REUSED', () => {
    const error = keyReused();
    expect([error.status, error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
  });

  it('answers a key in use with IDEMPOTENCY_KEY_IN_USE and Retry-After: 1', () => {
    const error = keyInUse();
    expect([error.status, error.code]).toEqual([409, 'IDEMPOTENCY_KEY_IN_USE']);
    expect(error.headers).toEqual({ 'Retry-After': '1' });
  });
});

describe('failureDisposition', () => {
  it.each([400, 401, 403, 404, 409, 422, 499])('stores a %i of a handler that ran', (status) => {
    expect(failureDisposition(status, true)).toBe('store');
  });

  it.each([429, 500, 503, 399, 302])('releases the key on a %i, whether the handler ran or not', (status) => {
    expect(failureDisposition(status, true)).toBe('release');
    expect(failureDisposition(status, false)).toBe('release');
  });

  it.each([400, 404, 409])('releases the key on a %i refused before the handler ran (validation)', (status) => {
    expect(failureDisposition(status, false)).toBe('release');
  });
});

describe('ensureClaimHeld', () => {
  it('accepts the completing write of exactly the claimed row', () => {
    expect(() => ensureClaimHeld(1)).not.toThrow();
  });

  it.each([0, 2, null, undefined])(
    'rolls back when the completing write hit %p rows: the claim was taken over',
    (rows) => {
      expect(() => ensureClaimHeld(rows)).toThrow('idempotency claim was lost');
    },
  );
});
