import { Controller, DynamicModule, Get, Inject, Injectable, Module, Res } from '@nestjs/common';
import {
  HealthCheckError,
  HealthCheckService,
  HealthIndicatorResult,
  TerminusModule,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import type { Response } from 'express';
import type Redis from 'ioredis';
import { REDIS } from './redis';

@Injectable()
class RedisHealthIndicator {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  async ping(key: string): Promise<HealthIndicatorResult> {
    try {
      await this.redis.ping();
      return { [key]: { status: 'up' } };
    } catch (error) {
      const result = { [key]: { status: 'down', message: (error as Error).message } } as HealthIndicatorResult;
      throw new HealthCheckError('redis unreachable', result);
    }
  }
}

/**
 * Liveness says the process runs; readiness says it can serve (database and Redis answer).
 * Both answer in Terminus' own format, which probes and operators expect, not in the API envelope.
 */
@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
  ) {}

  @Get('live')
  live(@Res() res: Response): void {
    res.status(200).json({ status: 'ok' });
  }

  @Get('ready')
  async ready(@Res() res: Response): Promise<void> {
    try {
      const result = await this.health.check([
        () => this.db.pingCheck('database', { timeout: 2000 }),
        () => this.redis.ping('redis'),
      ]);
      res.status(200).json(result);
    } catch (error) {
      const body = (error as { getResponse?: () => unknown }).getResponse?.() ?? { status: 'error' };
      res.status(503).json(body);
    }
  }
}

@Module({})
export class HealthModule {
  static forRoot(): DynamicModule {
    return {
      module: HealthModule,
      imports: [TerminusModule.forRoot({ errorLogStyle: 'json', logger: false })],
      controllers: [HealthController],
      providers: [RedisHealthIndicator],
    };
  }
}
