import {
  DynamicModule,
  Global,
  Inject,
  MiddlewareConsumer,
  Module,
  NestModule,
  OnModuleInit,
  RequestMethod,
} from '@nestjs/common';
import { APP_FILTER, APP_GUARD, HttpAdapterHost } from '@nestjs/core';
import type { Request, Response } from 'express';
import { EnvelopeExceptionFilter } from './envelope.filter';
import { ENVELOPE_STYLE, ERROR_CATALOG } from './envelope.tokens';
import type { ErrorCatalog } from './error-catalog';
import type { EnvelopeStyle } from './envelope-style';
import { RenderedBody } from './rendered-response';
import { requestContextMiddleware } from './request-context';
import { RequestInputGuard } from './request-input.guard';
import { isSuccessRenderingAdapter } from './success-rendering';

@Global()
@Module({})
export class EnvelopeModule implements NestModule, OnModuleInit {
  constructor(
    @Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** `errors`: the service's registry; a code thrown that is not in it is logged as a defect. */
  static forRoot(style: EnvelopeStyle, errors: ErrorCatalog | null = null): DynamicModule {
    return {
      module: EnvelopeModule,
      providers: [
        { provide: ENVELOPE_STYLE, useValue: style },
        { provide: ERROR_CATALOG, useValue: errors },
        // Registered before any other module's global guard, so it runs first among them.
        { provide: APP_GUARD, useClass: RequestInputGuard },
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
      ],
      exports: [ENVELOPE_STYLE],
    };
  }

  /** Every successful handler result leaves in the envelope, serialised once, unless it is already rendered. */
  onModuleInit(): void {
    const adapter = this.adapterHost.httpAdapter;
    if (!adapter) return; // an application context without HTTP answers nothing to wrap
    if (!isSuccessRenderingAdapter(adapter)) {
      throw new Error('create the app with httpAdapter() of @app/platform, which renders results in the envelope');
    }
    adapter.renderSuccessWith((req: Request, res: Response, status: number, result: unknown) => {
      // A handler that answered through the response itself (@Res passthrough) has nothing left to wrap.
      if (res.headersSent) return result;
      res.type('application/json');
      if (result instanceof RenderedBody) return result.body;
      return this.style.success(req, status, result);
    });
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(requestContextMiddleware(this.style.requestIdHeader))
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
