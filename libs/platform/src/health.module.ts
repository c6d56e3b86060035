import { Controller, DynamicModule, Get, Inject, Injectable, Module, Optional, Res } from '@nestjs/common';
import {
  HealthCheckError,
  HealthCheckService,
  HealthIndicatorFunction,
  HealthIndicatorResult,
  TerminusModule,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type { Response } from 'express';
import type Redis from 'ioredis';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import type { CoordinationBackend } from './config';
import { DependencyMetrics } from './dependency-metrics';
import { METRICS_REGISTRY } from './metrics.module';
import { REDIS } from './redis';
import { WarmUpGate, WarmUpPlan } from './warm-up';

const HEALTH_BACKEND = Symbol('HEALTH_BACKEND');

@Injectable()
class RedisHealthIndicator {
  constructor(@Optional() @Inject(REDIS) private readonly redis?: Redis) {}

  async ping(key: string): Promise<HealthIndicatorResult> {
    try {
      if (!this.redis) throw new Error('no Redis client in this process');
      await this.redis.ping();
      return { [key]: { status: 'up' } };
    } catch (error) {
      const result = { [key]: { status: 'down', message: (error as Error).message } } as HealthIndicatorResult;
      throw new HealthCheckError('redis unreachable', result);
    }
  }
}

/**
 * Liveness says the process runs; readiness says it can serve: its warm-up has finished (a
 * `warm_up` entry is down until then), the database answers and so does whatever the coordination
 * backend adds (Redis in Redis mode; nothing more in the PostgreSQL-only mode, whose queues and
 * limits live in that database). The `coordination` entry names the mode. Both answer in Terminus'
 * own format, which probes and operators expect, not in the API envelope.
 */
@Controller('health')
class HealthController {
  private readonly checks: HealthIndicatorFunction[];

  constructor(
    private readonly health: HealthCheckService,
    db: TypeOrmHealthIndicator,
    redis: RedisHealthIndicator,
    @Inject(HEALTH_BACKEND) backend: CoordinationBackend,
    warmUp: WarmUpGate,
  ) {
    this.checks = [
      () => warmUp.check('warm_up'),
      () => ({ coordination: { status: 'up', backend } }),
      () => db.pingCheck('database', { timeout: 2000 }),
      ...(backend === 'redis' ? [() => redis.ping('redis')] : []),
    ];
  }

  @Get('live')
  live(@Res() res: Response): void {
    res.status(200).json({ status: 'ok' });
  }

  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    try {
      res.status(200).json(await this.health.check(this.checks));
    } catch (error) {
      const body = (error as { getResponse?: () => unknown }).getResponse?.() ?? { status: 'error' };
      res.status(503).json(body);
    }
  }
}

@Module({})
export class HealthModule {
  /** `warmUp`: what the app sends itself and connects before it reports ready (see warmUpApp). */
  static forRoot(backend: CoordinationBackend, warmUp: WarmUpPlan = {}): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json', logger: false })],
      controllers: [HealthController],
      providers: [
        RedisHealthIndicator,
        { provide: HEALTH_BACKEND, useValue: backend },
        { provide: WarmUpGate, useValue: new WarmUpGate(warmUp) },
        // The same questions as readiness, asked on each scrape, for the alerts (see docs/operations.md).
        {
          provide: DependencyMetrics,
          inject: [METRICS_REGISTRY, DataSource, { token: REDIS, optional: true }],
          useFactory: (registry: Registry, dataSource: DataSource, redis?: Redis) =>
            new DependencyMetrics(registry, dataSource, backend, redis),
        },
      ],
      exports: [WarmUpGate],
    };
  }
}
