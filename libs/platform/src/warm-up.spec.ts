import { Controller, Get, HttpCode, INestApplication, Module, Post, Req } from '@nestjs/common';
import { HealthCheckError } from '@nestjs/terminus';
import { Test } from '@nestjs/testing';
import type { Request } from 'express';
import { loadConfig, ServiceConfig } from './config';
import { isWarmUpRequest, WarmUpGate, warmUpApp, WarmUpPlan } from './warm-up';

/** What the test app saw: per request, whether it carried the warm-up mark and whether readiness was held. */
const seen: Array<{ path: string; marked: boolean; warming: boolean }> = [];
let releaseSlow: () => void = () => undefined;
let gate: WarmUpGate;

@Controller()
class ProbeController {
  @Post('probe')
  @HttpCode(401)
  probe(@Req() req: Request): object {
    seen.push({ path: req.path, marked: isWarmUpRequest(req), warming: gate.warming });
    return { ok: false };
  }

  @Get('slow')
  slow(): Promise<string> {
    return new Promise((resolve) => (releaseSlow = () => resolve('late')));
  }
}

async function listeningApp(plan: WarmUpPlan): Promise<INestApplication> {
  gate = new WarmUpGate(plan);
  @Module({ controllers: [ProbeController], providers: [{ provide: WarmUpGate, useValue: gate }] })
  class ProbeModule {}
  const moduleRef = await Test.createTestingModule({ imports: [ProbeModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0);
  return app;
}

const config = (env: Record<string, string>) => loadConfig(ServiceConfig, { DB_POOL_MIN: '0', ...env });
const PROBE: WarmUpPlan = { requests: [{ method: 'POST', path: '/probe', body: { a: 1 } }] };

describe('WarmUpGate', () => {
  it('lets readiness pass before a warm-up began and after it finished, and holds it back in between', () => {
    const warmUp = new WarmUpGate();
    expect(warmUp.check('warm_up')).toEqual({});
    warmUp.begin();
    expect(() => warmUp.check('warm_up')).toThrow(HealthCheckError);
    try {
      warmUp.check('warm_up');
    } catch (error) {
      expect((error as HealthCheckError).causes).toEqual({ warm_up: { status: 'down', message: 'warming up' } });
    }
    warmUp.finish();
    expect(warmUp.check('warm_up')).toEqual({});
  });
});

describe('isWarmUpRequest', () => {
  it('refuses a request without the mark or with a made-up one', () => {
    expect(isWarmUpRequest({ headers: {} })).toBe(false);
    expect(isWarmUpRequest({ headers: { 'x-warm-up': 'a'.repeat(32) } })).toBe(false);
    expect(isWarmUpRequest({ headers: { 'x-warm-up': '1' } })).toBe(false);
  });
});

describe('warmUpApp', () => {
  let app: INestApplication;

  beforeEach(() => (seen.length = 0));
  afterEach(async () => {
    releaseSlow();
    await app.close();
  });

  it('sends WARM_UP_REQUESTS marked requests over loopback while readiness is held, then lets it pass', async () => {
    app = await listeningApp({ requests: [...PROBE.requests!, { method: 'POST', path: '/probe/' }] });
    const report = await warmUpApp(app, config({ WARM_UP_REQUESTS: '7' }));
    expect(report).toMatchObject({ requests: 7, statuses: { '401': 7 }, timedOut: false });
    expect(seen).toHaveLength(7);
    expect(seen.every((request) => request.marked && request.warming)).toBe(true);
    expect(gate.warming).toBe(false);
  });

  it('sends nothing and holds nothing with WARM_UP=false or WARM_UP_REQUESTS=0', async () => {
    app = await listeningApp(PROBE);
    expect(await warmUpApp(app, config({ WARM_UP: 'false' }))).toBeUndefined();
    expect(gate.warming).toBe(false);
    expect(await warmUpApp(app, config({ WARM_UP_REQUESTS: '0' }))).toMatchObject({ requests: 0 });
    expect(seen).toEqual([]);
    expect(gate.warming).toBe(false);
  });

  it('gives up after WARM_UP_TIMEOUT_MS and reports ready anyway', async () => {
    app = await listeningApp({ requests: [{ method: 'GET', path: '/slow' }] });
    const startedAt = Date.now();
    const report = await warmUpApp(app, config({ WARM_UP_REQUESTS: '3', WARM_UP_TIMEOUT_MS: '300' }));
    expect(report?.timedOut).toBe(true);
    expect(Date.now() - startedAt).toBeLessThan(3000);
    expect(gate.warming).toBe(false);
  });
});
