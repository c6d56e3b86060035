import {
  DynamicModule,
  Global,
  Inject,
  Injectable,
  Logger,
  Module,
  OnApplicationShutdown,
  OnModuleInit,
} from '@nestjs/common';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { DEFAULT_IDEMPOTENCY_OPTIONS, IDEMPOTENCY_OPTIONS, IdempotencyOptions } from './idempotency.options';
import { IdempotencyStore } from './idempotency.store';

@Injectable()
class IdempotencyPurger implements OnModuleInit, OnApplicationShutdown {
  private timer?: NodeJS.Timeout;
  private readonly logger = new Logger('Idempotency');

  constructor(
    private readonly store: IdempotencyStore,
    @Inject(IDEMPOTENCY_OPTIONS) private readonly options: IdempotencyOptions,
  ) {}

  onModuleInit(): void {
    if (this.options.purgeIntervalMs <= 0) return;
    this.timer = setInterval(() => {
      this.store
        .purgeExpired()
        .then((count) => count > 0 && this.logger.log(`purged ${count} expired idempotency keys`))
        .catch((error: Error) => this.logger.warn(`purge failed: ${error.message}`));
    }, this.options.purgeIntervalMs);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
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
        IdempotencyPurger,
      ],
      exports: [IdempotencyStore, IdempotencyInterceptor],
    };
  }
}
