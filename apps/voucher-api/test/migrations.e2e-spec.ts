import { lastMigrationRevert, migrationRoundTrip } from '@app/testing';
import { voucherMigrations } from '../src/database/migrations';

describe('voucher database migrations', () => {
  it('run all the way up on an empty database, all the way down, and up again', async () => {
    const trip = await migrationRoundTrip('voucher_mig', voucherMigrations);
    expect(trip.applied).toBe(voucherMigrations.length);
    expect(trip.tablesAfterUp).toEqual(expect.arrayContaining(['idempotency_keys', 'users']));
    expect(trip.tablesAfterDown).toEqual([]);
    expect(trip.tablesAfterSecondUp).toEqual(trip.tablesAfterUp);
  });

  it('reverts exactly the last migration with the migration CLI, then applies it again', async () => {
    const trip = await lastMigrationRevert('voucher_rev', voucherMigrations);
    const last = voucherMigrations[voucherMigrations.length - 1].name;
    expect(trip.output).toEqual([
      expect.stringMatching(new RegExp(`^applied ${voucherMigrations.length} migration\\(s\\) to `)),
      expect.stringMatching(new RegExp(`^reverted ${last} of `)),
      expect.stringMatching(/^applied 1 migration\(s\) to /),
    ]);
    expect(trip.afterRevert).toEqual(trip.beforeLast);
    // A migration may change data alone (its schema then equals the run's): the record says what was undone.
    expect(trip.appliedAfterRevert).toEqual(voucherMigrations.slice(0, -1).map((migration) => migration.name));
    expect(trip.afterRunAgain).toEqual(trip.afterRun);
  });
});
