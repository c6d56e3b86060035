import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_PIPE } from '@nestjs/core';
import { REQUEST_INPUT_CHECK } from '@app/envelope';
import type { Request } from 'express';
import { jsonBodyMiddleware } from './json-body';
import { rejectNulInput } from './reject-nul';
import { createValidationPipe } from './validation';

export interface HttpFoundationOptions {
  bodyLimit: string;
  /** Routes that read the raw request stream themselves (e.g. file upload PUTs). */
  skipJsonBody?: (req: Request) => boolean;
}

const OPTIONS = Symbol('HTTP_FOUNDATION_OPTIONS');

/** Body parsing, NUL refusal and validation shared by every HTTP app; pair it with EnvelopeModule. */
@Module({})
export class HttpFoundationModule implements NestModule {
  constructor(@Inject(OPTIONS) private readonly options: HttpFoundationOptions) {}

  static forRoot(options: HttpFoundationOptions): DynamicModule {
    return {
      module: HttpFoundationModule,
      // Global only so that EnvelopeModule's interceptor can inject the NUL check.
      global: true,
      providers: [
        { provide: OPTIONS, useValue: options },
        { provide: APP_PIPE, useFactory: createValidationPipe },
        { provide: REQUEST_INPUT_CHECK, useValue: rejectNulInput },
      ],
      exports: [REQUEST_INPUT_CHECK],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(jsonBodyMiddleware(this.options.bodyLimit, this.options.skipJsonBody))
      .forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}
