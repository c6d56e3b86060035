import { lastMigrationRevert, migrationRoundTrip } from '@app/testing';
import { botMigrations } from '../src/database/migrations';

describe('bot database migrations', () => {
  it('run all the way up on an empty database, all the way down, and up again', async () => {
    const trip = await migrationRoundTrip('bot_mig', botMigrations);
    expect(trip.applied).toBe(botMigrations.length);
    expect(trip.tablesAfterUp).toEqual(expect.arrayContaining(['idempotency_keys', 'users']));
    expect(trip.tablesAfterDown).toEqual([]);
    expect(trip.tablesAfterSecondUp).toEqual(trip.tablesAfterUp);
  });

  it('reverts exactly the last migration with the migration CLI, then applies it again', async () => {
    const trip = await lastMigrationRevert('bot_rev', botMigrations);
    const last = botMigrations[botMigrations.length - 1].name;
    expect(trip.output).toEqual([
      expect.stringMatching(new RegExp(`^applied ${botMigrations.length} migration\\(s\\) to `)),
      expect.stringMatching(new RegExp(`^reverted ${last} of `)),
      expect.stringMatching(/^applied 1 migration\(s\) to /),
    ]);
    expect(trip.afterRevert).toEqual(trip.beforeLast);
    // A migration may change data alone (its schema then equals the run's): the record says what was undone.
    expect(trip.appliedAfterRevert).toEqual(botMigrations.slice(0, -1).map((migration) => migration.name));
    expect(trip.afterRunAgain).toEqual(trip.afterRun);
  });
});
