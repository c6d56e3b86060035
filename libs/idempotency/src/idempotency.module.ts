import { DynamicModule, Global, Inject, Injectable, Logger, Module } from '@nestjs/common';
import type { PeriodicTask } from '@app/coordination';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { DEFAULT_IDEMPOTENCY_OPTIONS, IDEMPOTENCY_OPTIONS, IdempotencyOptions } from './idempotency.options';
import { IdempotencyStore } from './idempotency.store';

/** Drops expired keys; an app lists it in its periodic work so that it runs once per cluster. */
@Injectable()
export class IdempotencyPurge implements PeriodicTask {
  private readonly logger = new Logger('Idempotency');
  readonly everyMs: number;

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(IDEMPOTENCY_OPTIONS) options: IdempotencyOptions,
  ) {
    this.everyMs = options.purgeIntervalMs;
  }

  async run(): Promise<void> {
    const count = await this.store.purgeExpired();
    if (count > 0) this.logger.log(`purged ${count} expired idempotency keys`);
  }
}

@Global()
@Module({})
export class IdempotencyModule {
  static forRoot(options: Partial<IdempotencyOptions> = {}): DynamicModule {
    return {
      module: IdempotencyModule,
      providers: [
        { provide: IDEMPOTENCY_OPTIONS, useValue: { ...DEFAULT_IDEMPOTENCY_OPTIONS, ...options } },
        IdempotencyStore,
        IdempotencyInterceptor,
        IdempotencyPurge,
      ],
      exports: [IdempotencyStore, IdempotencyInterceptor, IdempotencyPurge],
    };
  }
}
