import { DynamicModule, Global, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { EnvelopeExceptionFilter } from './envelope.filter';
import { EnvelopeInterceptor } from './envelope.interceptor';
import { ENVELOPE_STYLE, ERROR_CATALOG } from './envelope.tokens';
import type { ErrorCatalog } from './error-catalog';
import type { EnvelopeStyle } from './envelope-style';
import { requestContextMiddleware } from './request-context';

@Global()
@Module({})
export class EnvelopeModule implements NestModule {
  constructor(@Inject(ENVELOPE_STYLE) private readonly style: EnvelopeStyle) {}

  /** `errors`: the service's registry; a code thrown that is not in it is logged as a defect. */
  static forRoot(style: EnvelopeStyle, errors: ErrorCatalog | null = null): DynamicModule {
    return {
      module: EnvelopeModule,
      providers: [
        { provide: ENVELOPE_STYLE, useValue: style },
        { provide: ERROR_CATALOG, useValue: errors },
        { provide: APP_INTERCEPTOR, useClass: EnvelopeInterceptor },
        { provide: APP_FILTER, useClass: EnvelopeExceptionFilter },
      ],
      exports: [ENVELOPE_STYLE],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(requestContextMiddleware(this.style.requestIdHeader))
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
