import {
  Controller,
  Get,
  Global,
  Inject,
  Injectable,
  MiddlewareConsumer,
  Module,
  NestModule,
  RequestMethod,
  Res,
} from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { isWarmUpRequest } from './warm-up';

export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** A registry per application instance, so that several apps can live in one test process. */
function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

type HttpLabel = 'method' | 'route' | 'status';

/** The two series of one method, route pattern and status, resolved once instead of per request. */
interface RouteSeries {
  requests: { inc(): void };
  duration: { observe(seconds: number): void };
}

/** Request count and duration; one instance per app (the middleware below only calls it). */
@Injectable()
class HttpMetrics {
  private readonly requests: Counter<HttpLabel>;
  private readonly duration: Histogram<HttpLabel>;
  // prom-client hashes a label object on every call; the key set is bounded by routes × statuses.
  private readonly series = new Map<string, RouteSeries>();

  constructor(@Inject(METRICS_REGISTRY) registry: Registry) {
    this.requests = new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60],
      registers: [registry],
    });
  }

  observe(req: Request, res: Response, next: NextFunction): void {
    // The app's own warm-up answers are not traffic: counted, they would skew rates, errors and latency.
    if (isWarmUpRequest(req)) return next();
    const startedAt = performance.now();
    res.once('finish', () => {
      // The route pattern, never the raw URL, keeps label cardinality bounded.
      const route = `${req.baseUrl ?? ''}${(req.route?.path as string | undefined) ?? 'unmatched'}`;
      const series = this.seriesOf(req.method, route, res.statusCode);
      series.requests.inc();
      series.duration.observe((performance.now() - startedAt) / 1000);
    });
    next();
  }

  private seriesOf(method: string, route: string, status: number): RouteSeries {
    const key = `${method} ${status} ${route}`;
    let series = this.series.get(key);
    if (!series) {
      const labels = { method, route, status: String(status) };
      series = { requests: this.requests.labels(labels), duration: this.duration.labels(labels) };
      this.series.set(key, series);
    }
    return series;
  }
}

@Controller('metrics')
class MetricsController {
  constructor(@Inject(METRICS_REGISTRY) private readonly registry: Registry) {}

  @Get()
  async metrics(@Res() res: Response): Promise<void> {
    res.type(this.registry.contentType).send(await this.registry.metrics());
  }
}

@Global()
@Module({
  controllers: [MetricsController],
  providers: [{ provide: METRICS_REGISTRY, useFactory: createRegistry }, HttpMetrics],
  exports: [METRICS_REGISTRY],
})
export class MetricsModule implements NestModule {
  constructor(private readonly metrics: HttpMetrics) {}

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply((req: Request, res: Response, next: NextFunction) => this.metrics.observe(req, res, next))
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
