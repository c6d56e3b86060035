import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { ApiError } from '@app/envelope';
import type { Request } from 'express';
import { lastValueFrom, of } from 'rxjs';
import { callPlaintext, sealToService, SealedUnit, startSealedUnit } from '../../test/sealed-unit-fixture';
import { RUNTIME_ROUTE_KEY } from '../applications/runtime-route.options';
import { loadConfig } from '@app/platform';
import { VoucherConfig } from '../config/voucher.config';
import { SealedCallAdmission } from './sealed-call.admission';
import { markSealed } from './sealed-call.marker';
import { SealedTransportGuard } from './sealed-transport.guard';

@SetMetadata(RUNTIME_ROUTE_KEY, true)
class RuntimeRoutes {
  redeem() {}
}
class ConsoleRoutes {
  list() {}
  @SetMetadata(RUNTIME_ROUTE_KEY, true)
  runtimeHere() {}
}

function context(req: Request, type: 'http' | 'rpc', routes: object, handler: () => void) {
  const host = new ExecutionContextHost([req, {}, () => undefined], routes.constructor as never, handler);
  host.setType(type);
  return host;
}

const request = () => ({ method: 'POST', path: '/api/v1/open-platform/vouchers/redeem' }) as Request;

async function refusal(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('the sealed-transport guard and admission', () => {
  let unit: SealedUnit;
  const runtime = new RuntimeRoutes();
  const consoleRoutes = new ConsoleRoutes();
  beforeAll(async () => {
    unit = await startSealedUnit();
  });
  afterAll(() => unit.close());

  const guard = (mode: 'optional' | 'required') =>
    new SealedTransportGuard(new Reflector(), unit.service, loadConfig(VoucherConfig, { NODE_ENV: 'test', SEALED_TRANSPORT: mode }));
  const sealedRequest = async () => {
    const req = request();
    markSealed(req, await unit.service.open(await sealToService(await callPlaintext())));
    return req;
  };

  describe('SealedTransportGuard', () => {
    it('lets a plain call through in optional mode, to any route', async () => {
      await expect(guard('optional').canActivate(context(request(), 'http', runtime, runtime.redeem))).resolves.toBe(true);
      await expect(guard('optional').canActivate(context(request(), 'http', consoleRoutes, consoleRoutes.list))).resolves.toBe(true);
    });

    it('turns a plain call to a runtime route away in required mode, naming the sealed route', async () => {
      const error = await refusal(() => guard('required').canActivate(context(request(), 'http', runtime, runtime.redeem)));
      expect(error.code).toBe('SEALED_TRANSPORT_REQUIRED');
      expect(error.message).toBe(
        'Runtime calls are accepted only sealed: POST /api/v1/open-platform/sealed with a compact JWE to a key of /.well-known/jwks.json',
      );
    });

    it('reads the runtime mark of the handler as well as of its class', async () => {
      const error = await refusal(() =>
        guard('required').canActivate(context(request(), 'http', consoleRoutes, consoleRoutes.runtimeHere)),
      );
      expect(error.code).toBe('SEALED_TRANSPORT_REQUIRED');
    });

    it('lets a plain call to another route through in required mode', async () => {
      await expect(guard('required').canActivate(context(request(), 'http', consoleRoutes, consoleRoutes.list))).resolves.toBe(true);
    });

    it('lets a non-HTTP context through untouched', async () => {
      await expect(guard('required').canActivate(context(request(), 'rpc', runtime, runtime.redeem))).resolves.toBe(true);
    });

    it('refuses a sealed call to a route that is not a runtime route, naming it', async () => {
      const req = await sealedRequest();
      const error = await refusal(() => guard('optional').canActivate(context(req, 'http', consoleRoutes, consoleRoutes.list)));
      expect([error.code, error.message]).toEqual([
        'SEALED_ROUTE_NOT_ALLOWED',
        'POST /api/v1/open-platform/vouchers/redeem is not a runtime route',
      ]);
    });

    it('lets a sealed call to a runtime route through until its seal was admitted, then refuses it as a replay', async () => {
      const req = await sealedRequest();
      await expect(guard('required').canActivate(context(req, 'http', runtime, runtime.redeem))).resolves.toBe(true);
      await lastValueFrom(new SealedCallAdmission(unit.service).intercept(context(req, 'http', runtime, runtime.redeem), { handle: () => of('ran') }));
      const error = await refusal(() => guard('required').canActivate(context(req, 'http', runtime, runtime.redeem)));
      expect(error.code).toBe('SEALED_REQUEST_REPLAYED');
    });
  });

  describe('SealedCallAdmission', () => {
    const admission = () => new SealedCallAdmission(unit.service);

    it('runs a plain call without recording anything', async () => {
      const answer = admission().intercept(context(request(), 'http', runtime, runtime.redeem), { handle: () => of('plain') });
      await expect(lastValueFrom(answer)).resolves.toBe('plain');
    });

    it('records a sealed call before it runs, so the same seal never runs twice', async () => {
      const req = await sealedRequest();
      let runs = 0;
      const next = { handle: () => of(++runs) };
      await expect(lastValueFrom(admission().intercept(context(req, 'http', runtime, runtime.redeem), next))).resolves.toBe(1);
      await expect(lastValueFrom(admission().intercept(context(req, 'http', runtime, runtime.redeem), next))).rejects.toMatchObject({
        code: 'SEALED_REQUEST_REPLAYED',
      });
      expect(runs).toBe(1);
    });

    it('leaves a non-HTTP context alone, even carrying a sealed request', async () => {
      const req = await sealedRequest();
      const next = { handle: () => of('rpc') };
      for (let i = 0; i < 2; i++) {
        await expect(lastValueFrom(admission().intercept(context(req, 'rpc', runtime, runtime.redeem), next))).resolves.toBe('rpc');
      }
    });
  });
});
