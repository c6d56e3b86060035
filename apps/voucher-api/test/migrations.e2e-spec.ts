import { migrationRoundTrip } from '@app/testing';
import { voucherMigrations } from '../src/database/migrations';

describe('voucher database migrations', () => {
  it('run all the way up on an empty database, all the way down, and up again', async () => {
    const trip = await migrationRoundTrip('voucher_mig', voucherMigrations);
    expect(trip.applied).toBe(voucherMigrations.length);
    expect(trip.tablesAfterUp).toEqual(expect.arrayContaining(['idempotency_keys', 'users']));
    expect(trip.tablesAfterDown).toEqual([]);
    expect(trip.tablesAfterSecondUp).toEqual(trip.tablesAfterUp);
  });
});
