import type { INestApplication } from '@nestjs/common';
import { createTestApp, describeEachBackend, expectOneScheduledRunPerTask } from '@app/testing';
import { AppModule } from '../src/app.module';
import { startVoucherApp, VoucherTestContext } from './app-context';

describeEachBackend('voucher-api periodic work on two replicas', (backend) => {
  let ctx: VoucherTestContext;
  let second: INestApplication;

  beforeAll(async () => {
    ctx = await startVoucherApp({ COORDINATION_BACKEND: backend });
    second = await createTestApp(AppModule.forRoot(ctx.config));
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await ctx?.close();
  });

  it('schedules the idempotency purge once for the cluster and runs each scheduled run on one replica', async () => {
    await expectOneScheduledRunPerTask(ctx.app, 'voucher-api-periodic', ['idempotency-purge']);
  });
});
