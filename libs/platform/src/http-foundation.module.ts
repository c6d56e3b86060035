import {
  DynamicModule,
  Inject,
  MiddlewareConsumer,
  Module,
  NestModule,
  OnModuleInit,
  RequestMethod,
} from '@nestjs/common';
import { APP_PIPE, HttpAdapterHost } from '@nestjs/core';
import { REQUEST_INPUT_CHECK } from '@app/envelope';
import type { Request } from 'express';
import { jsonBodyMiddleware } from './json-body';
import { rejectNulInput } from './reject-nul';
import { createValidationPipe } from './validation';

export interface HttpFoundationOptions {
  bodyLimit: string;
  /** TRUST_PROXY_HOPS: how many proxies' `X-Forwarded-*` entries name the client (0: none). */
  trustProxyHops?: number;
  /** Routes that read the raw request stream themselves (e.g. file upload PUTs). */
  skipJsonBody?: (req: Request) => boolean;
}

const OPTIONS = Symbol('HTTP_FOUNDATION_OPTIONS');

/** Body parsing, NUL refusal and validation shared by every HTTP app; pair it with EnvelopeModule. */
@Module({})
export class HttpFoundationModule implements NestModule, OnModuleInit {
  constructor(
    @Inject(OPTIONS) private readonly options: HttpFoundationOptions,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  /** Express reads `trust proxy` per request (req.ip, req.host, req.protocol), so setting it before listening is enough. */
  onModuleInit(): void {
    const express = this.adapterHost.httpAdapter?.getInstance() as { set?: (name: string, value: unknown) => void };
    express?.set?.('trust proxy', this.options.trustProxyHops ?? 0);
  }

  static forRoot(options: HttpFoundationOptions): DynamicModule {
    return {
      module: HttpFoundationModule,
      // Global only so that EnvelopeModule's RequestInputGuard can inject the NUL check.
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
