import { migrationRoundTrip } from '@app/testing';
import { botMigrations } from '../src/database/migrations';

describe('bot database migrations', () => {
  it('run all the way up on an empty database, all the way down, and up again', async () => {
    const trip = await migrationRoundTrip('bot_mig', botMigrations);
    expect(trip.applied).toBe(botMigrations.length);
    expect(trip.tablesAfterUp).toEqual(expect.arrayContaining(['idempotency_keys', 'users']));
    expect(trip.tablesAfterDown).toEqual([]);
    expect(trip.tablesAfterSecondUp).toEqual(trip.tablesAfterUp);
  });
});
