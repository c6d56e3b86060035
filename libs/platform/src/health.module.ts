import { Controller, DynamicModule, Get, Inject, Injectable, Module, Optional, Res } from '@nestjs/common';
import {
  HealthCheckError,
  HealthCheckService,
  HealthIndicatorFunction,
  HealthIndicatorResult,
  TerminusModule,
} from '@nestjs/terminus';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { Gauge, type Registry } from 'prom-client';
import type { BuildInfo } from './build-info';
import type { CoordinationBackend } from './config';
import { Database } from './database-pool';
import { DependencyMetrics } from './dependency-metrics';
import { METRICS_REGISTRY } from './metrics.module';
import { REDIS } from './redis';
import { WarmUpGate, WarmUpPlan } from './warm-up';

const HEALTH_BACKEND = Symbol('HEALTH_BACKEND');
const BUILD_INFO = Symbol('BUILD_INFO');
const BUILD_INFO_METRIC = Symbol('BUILD_INFO_METRIC');

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

/** Whether the process's own pool gets an answer from PostgreSQL within the probe's time. */
@Injectable()
class DatabaseHealthIndicator {
  constructor(private readonly database: Database) {}

  async ping(key: string, timeoutMs: number): Promise<HealthIndicatorResult> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.database.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timeout of ${timeoutMs}ms exceeded`)), timeoutMs);
        }),
      ]);
      return { [key]: { status: 'up' } };
    } catch (error) {
      const result = { [key]: { status: 'down', message: (error as Error).message } } as HealthIndicatorResult;
      throw new HealthCheckError('database unreachable', result);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Liveness says the process runs, and which release it runs (version and commit); readiness says it
 * can serve: its warm-up has finished (a `warm_up` entry is down until then), the database answers and
 * so does whatever the coordination backend adds (Redis in Redis mode; nothing more in the
 * PostgreSQL-only mode, whose queues and limits live in that database). The `coordination` entry names
 * the mode. Both answer in Terminus' own format, which probes and operators expect, not in the API
 * envelope.
 */
@Controller('health')
class HealthController {
  private readonly checks: HealthIndicatorFunction[];
  private readonly liveBody: { status: 'ok' } & BuildInfo;

  constructor(
    private readonly health: HealthCheckService,
    db: DatabaseHealthIndicator,
    redis: RedisHealthIndicator,
    @Inject(HEALTH_BACKEND) backend: CoordinationBackend,
    warmUp: WarmUpGate,
    @Inject(BUILD_INFO) build: BuildInfo,
  ) {
    this.liveBody = { status: 'ok', version: build.version, commit: build.commit };
    this.checks = [
      () => warmUp.check('warm_up'),
      () => ({ coordination: { status: 'up', backend } }),
      () => db.ping('database', 2000),
      ...(backend === 'redis' ? [() => redis.ping('redis')] : []),
    ];
  }

  @Get('live')
  live(@Res() res: Response): void {
    res.status(200).json(this.liveBody);
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
  /**
   * `warmUp`: what the app sends itself and connects before it reports ready (see warmUpApp); `build`:
   * the release the process runs (readBuildInfo), shown by liveness and the `app_build_info` metric.
   */
  static forRoot(backend: CoordinationBackend, warmUp: WarmUpPlan, build: BuildInfo): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json', logger: false })],
      controllers: [HealthController],
      providers: [
        DatabaseHealthIndicator,
        RedisHealthIndicator,
        { provide: HEALTH_BACKEND, useValue: backend },
        { provide: BUILD_INFO, useValue: build },
        // The usual build-info series: constant 1, the release in its labels, for joins and dashboards.
        {
          provide: BUILD_INFO_METRIC,
          inject: [METRICS_REGISTRY],
          useFactory: (registry: Registry) => {
            const gauge = new Gauge({
              name: 'app_build_info',
              help: 'The release this process runs: its version and the commit it was built from (always 1)',
              labelNames: ['version', 'commit'],
              registers: [registry],
            });
            gauge.set({ version: build.version, commit: build.commit }, 1);
            return gauge;
          },
        },
        { provide: WarmUpGate, useValue: new WarmUpGate(warmUp) },
        // The same questions as readiness, asked on each scrape, for the alerts (see docs/operations.md).
        {
          provide: DependencyMetrics,
          inject: [METRICS_REGISTRY, Database, { token: REDIS, optional: true }],
          useFactory: (registry: Registry, database: Database, redis?: Redis) =>
            new DependencyMetrics(registry, database, backend, redis),
        },
      ],
      exports: [WarmUpGate],
    };
  }
}
