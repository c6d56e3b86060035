import type { ExecutionContext } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { DEV_INTERNAL_API_TOKEN, internalApiTokenProblems, InternalServiceGuard } from './internal-service-token';

const contextWith = (authorization?: string) =>
  ({
    switchToHttp: () => ({ getRequest: () => ({ headers: authorization === undefined ? {} : { authorization } }) }),
  }) as unknown as ExecutionContext;

describe('internal service token', () => {
  const token = 'a-shared-secret-of-thirty-two-bytes!';
  const guard = new InternalServiceGuard(token);

  it('lets through exactly the configured bearer token', () => {
    expect(guard.canActivate(contextWith(`Bearer ${token}`))).toBe(true);
  });

  it('refuses no token, another token, a prefix or extension of it, and the token without the Bearer scheme with 401', () => {
    for (const header of [undefined, 'Bearer other', `Bearer ${token.slice(0, -1)}`, `Bearer ${token}x`, token]) {
      let thrown: unknown;
      try {
        guard.canActivate(contextWith(header));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).status).toBe(401);
      expect(JSON.stringify(thrown)).not.toContain(token);
    }
  });

  it('refuses the development default and a short token in production only', () => {
    expect(internalApiTokenProblems(DEV_INTERNAL_API_TOKEN, 'development')).toEqual([]);
    expect(internalApiTokenProblems(DEV_INTERNAL_API_TOKEN, 'production')).toEqual([
      expect.stringMatching(/^INTERNAL_API_TOKEN: the development default is refused/),
    ]);
    expect(internalApiTokenProblems('only-twenty-chars-xx', 'production')).toEqual([
      expect.stringMatching(/^INTERNAL_API_TOKEN: at least 32 bytes/),
    ]);
    expect(internalApiTokenProblems(token, 'production')).toEqual([]);
  });

  it('names the development default by its value, and takes a token of exactly 32 bytes', () => {
    expect(DEV_INTERNAL_API_TOKEN).toBe('dev-internal-api-token-change-me');
    expect(internalApiTokenProblems('x'.repeat(32), 'production')).toEqual([]);
    expect(internalApiTokenProblems('x'.repeat(31), 'production')).toEqual([
      'INTERNAL_API_TOKEN: at least 32 bytes when NODE_ENV=production',
    ]);
  });

  it('says which token the route takes when it refuses one', () => {
    expect(() => guard.canActivate(contextWith('Bearer other'))).toThrow(
      'This route takes the platform internal service token',
    );
  });
});
