import type { INestApplication } from '@nestjs/common';
import { createTestApp, describeEachBackend, expectOneScheduledRunPerTask } from '@app/testing';
import { AppModule } from '../src/app.module';
import { BotTestContext, startBotApp } from './app-context';

describeEachBackend('bot-api periodic work on two replicas', (backend) => {
  let ctx: BotTestContext;
  let second: INestApplication;

  beforeAll(async () => {
    // Intervals far beyond the test: only the first run of each task is due.
    ctx = await startBotApp({ COORDINATION_BACKEND: backend, REDRIVE_STEP_MS: '600000' });
    second = await createTestApp(AppModule.forRoot(ctx.config));
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await ctx?.close();
  });

  it('schedules every purge, sweep and tick once for the cluster and runs each scheduled run on one replica', async () => {
    await expectOneScheduledRunPerTask(ctx.app, 'bot-api-periodic', [
      'queries-purge',
      'one-time-token-purge',
      'file-upload-purge',
      'idempotency-purge',
      'redrive-tick',
      'file-retention-purge',
      'virtual-member-audit-purge',
      'message-detection-backfill',
      'delivery-partitions',
    ]);
  });
});
