import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { RUNTIME_ROUTE_KEY } from '../applications/runtime-route.options';
import { VoucherConfig } from '../config/voucher.config';
import { VoucherErrors } from '../voucher-errors';
import { sealedCallOf } from './sealed-call.marker';
import { SEALED_ROUTE } from '../config/sealed-transport.mode';
import { SealedTransportService } from './sealed-transport.service';

/**
 * Runs before every route's own guards, once the router knows the route: a sealed call reaches only
 * runtime routes, and a seal already used is turned away before its token is looked up (its id is
 * recorded later, by SealedCallAdmission, once the route's guards have let it through); in `required`
 * mode a plain call to a runtime route is turned away with the route it should use.
 */
@Injectable()
export class SealedTransportGuard implements CanActivate {
  private readonly required: boolean;

  constructor(
    private readonly reflector: Reflector,
    private readonly sealed: SealedTransportService,
    @Inject(VoucherConfig) config: VoucherConfig,
  ) {
    this.required = config.SEALED_TRANSPORT === 'required';
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<Request>();
    const runtime = this.reflector.getAllAndOverride(RUNTIME_ROUTE_KEY, [context.getHandler(), context.getClass()]);
    const call = sealedCallOf(req);
    if (call) {
      if (!runtime)
        throw VoucherErrors.error('SEALED_ROUTE_NOT_ALLOWED', `${req.method} ${req.path} is not a runtime route`);
      await this.sealed.refuseReplay(call);
      return true;
    }
    if (runtime && this.required) {
      throw VoucherErrors.error(
        'SEALED_TRANSPORT_REQUIRED',
        `Runtime calls are accepted only sealed: POST ${SEALED_ROUTE} with a compact JWE to a key of /.well-known/jwks.json`,
      );
    }
    return true;
  }
}
