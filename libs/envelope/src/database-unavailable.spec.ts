import { QueryFailedError } from 'typeorm';
import { databaseUnavailable } from './database-unavailable';

describe('a database that cannot be reached answers 503, not 500', () => {
  it('maps refused, terminated and shut-down connections to 503 SERVICE_UNAVAILABLE with Retry-After', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = new Error('Connection terminated unexpectedly');
    const shutdown = new QueryFailedError(
      'SELECT 1',
      [],
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    );
    const starting = Object.assign(new Error('the database system is starting up'), { code: '57P03' });
    for (const error of [refused, terminated, shutdown, starting]) {
      const mapped = databaseUnavailable(error);
      expect(mapped).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', headers: { 'Retry-After': '1' } });
    }
  });

  it('leaves other failures alone: a constraint violation, a programming error, a non-error', () => {
    const unique = new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505' }));
    expect(databaseUnavailable(unique)).toBeUndefined();
    expect(databaseUnavailable(new TypeError('x is undefined'))).toBeUndefined();
    expect(databaseUnavailable('boom')).toBeUndefined();
  });
});
