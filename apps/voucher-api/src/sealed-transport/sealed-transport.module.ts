import { DynamicModule, Inject, MiddlewareConsumer, Module, NestModule, RequestMethod } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import type { Request } from 'express';
import { VoucherConfig } from '../config/voucher.config';
import { SealCipher } from './seal-cipher';
import { SealedCallAdmission } from './sealed-call.admission';
import { SealedCallMiddleware } from './sealed-call.middleware';
import { SealedRequestIdsStore } from './sealed-request-ids.store';
import { SEALED_ROUTE } from '../config/sealed-transport.mode';
import { SealedTransportController } from './sealed-transport.controller';
import { SealedTransportGuard } from './sealed-transport.guard';
import { SealedTransportService } from './sealed-transport.service';

/** The sealed route reads its own body (a JWE, not JSON); the JSON body parser leaves it alone. */
export function isSealedRoute(req: Request): boolean {
  return req.method === 'POST' && req.path === SEALED_ROUTE;
}

/**
 * Sealed transport (docs/sealed-transport.md): runtime calls as compact JWEs on one route, run through
 * the same pipeline as plain calls. Its middleware and guard are mounted only while it is on.
 */
@Module({})
export class SealedTransportModule implements NestModule {
  constructor(@Inject(VoucherConfig) private readonly config: VoucherConfig) {}

  static forRoot(config: VoucherConfig): DynamicModule {
    const on = config.SEALED_TRANSPORT !== 'off';
    return {
      module: SealedTransportModule,
      controllers: [SealedTransportController],
      providers: [
        SealCipher,
        SealedRequestIdsStore,
        SealedTransportService,
        ...(on
          ? [
              { provide: APP_GUARD, useClass: SealedTransportGuard },
              { provide: APP_INTERCEPTOR, useClass: SealedCallAdmission },
            ]
          : []),
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    if (this.config.SEALED_TRANSPORT === 'off') return;
    consumer.apply(SealedCallMiddleware).forRoutes({ path: SEALED_ROUTE.slice(1), method: RequestMethod.POST });
  }
}
