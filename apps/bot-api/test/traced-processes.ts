import { OtlpReceiver, ServiceProcess, startServiceProcess, testEnv } from '@app/testing';
import type { BotTestContext } from './app-context';

/** Tracing on in a process a test starts: every span to `otlp`, each batch sent within 100 ms. */
export function tracingEnv(otlp: OtlpReceiver): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
}

/**
 * bot-api as its own process with tracing on, on the test app's database and Redis prefix, exactly as
 * deployed (the instrumentations hook `require`, which an in-process app has long done).
 */
export function startTracedBotApi(
  ctx: BotTestContext,
  otlp: OtlpReceiver,
  extraEnv: Record<string, string> = {},
): Promise<ServiceProcess> {
  return startServiceProcess(
    'apps/bot-api/src/main.ts',
    testEnv(ctx.config.DB_NAME, ctx.config.REDIS_KEY_PREFIX, {
      COORDINATION_BACKEND: ctx.config.coordinationBackend,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_SECRET_KEY: ctx.config.WEBHOOK_SECRET_KEY,
      ...tracingEnv(otlp),
      ...extraEnv,
    }),
    60_000,
  );
}
