import { ServiceProcess, startServiceProcess, testEnv } from '@app/testing';
import type { BotTestContext } from './app-context';

export type DispatcherProcess = ServiceProcess;

/**
 * bot-dispatcher started as its own process on the test app's database and Redis prefix, exactly as
 * deployed: bot-api never imports the dispatcher's code. Ready once /health/ready answers 200.
 */
export function startDispatcher(
  ctx: BotTestContext,
  extraEnv: Record<string, string>,
  timeoutMs?: number,
): Promise<DispatcherProcess> {
  return startServiceProcess(
    'apps/bot-dispatcher/src/main.ts',
    testEnv(ctx.config.DB_NAME, ctx.config.REDIS_KEY_PREFIX, {
      COORDINATION_BACKEND: ctx.config.coordinationBackend,
      LOG_LEVEL: process.env.TEST_DEBUG ? 'info' : 'warn',
      WEBHOOK_SECRET_KEY: ctx.config.WEBHOOK_SECRET_KEY,
      ...extraEnv,
    }),
    timeoutMs,
  );
}
