import { Logger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { quietPeriod } from '@app/testing';
import { GatedSweep } from '../test/gated-sweep';

describe('periodic sweep', () => {
  let log: jest.SpyInstance;
  let warn: jest.SpyInstance;

  beforeEach(() => {
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('lets a direct call made during a pass share that pass, and starts a new one once it is over', async () => {
    const sweep = new GatedSweep();
    const scheduled = sweep.run();
    const direct = sweep.sweep();
    expect(direct).toBe(scheduled);
    expect(sweep.passes).toBe(1);
    sweep.open();
    await expect(Promise.all([scheduled, direct])).resolves.toEqual([2, 2]);

    const next = sweep.sweep();
    expect(sweep.passes).toBe(2);
    sweep.open();
    await expect(next).resolves.toBe(2);
  });

  it('logs how many a pass removed under its subclass name, and nothing for an empty pass', async () => {
    const sweep = new GatedSweep();
    const first = sweep.sweep();
    sweep.open();
    await first;
    expect(log.mock.calls).toEqual([['purged 2 gated row(s)']]);
    expect(log.mock.contexts[0]).toMatchObject({ context: 'GatedSweep' });

    sweep.outcome = 0;
    const empty = sweep.sweep();
    sweep.open();
    await expect(empty).resolves.toBe(0);
    expect(log).toHaveBeenCalledTimes(1);
  });

  it('logs no count for a sweep that names nothing it removes', async () => {
    const sweep = new GatedSweep(60_000, { name: 'quiet sweep' });
    const pass = sweep.sweep();
    sweep.open();
    await expect(pass).resolves.toBe(2);
    expect(log).not.toHaveBeenCalled();
  });

  it('logs a failed pass as a warning and answers 0, and the next call runs a fresh pass', async () => {
    const sweep = new GatedSweep();
    sweep.outcome = new Error('storage unreachable');
    const failed = sweep.sweep();
    sweep.open();
    await expect(failed).resolves.toBe(0);
    expect(warn.mock.calls).toEqual([['gated sweep failed: storage unreachable']]);

    sweep.outcome = 3;
    const retried = sweep.sweep();
    expect(sweep.passes).toBe(2);
    sweep.open();
    await expect(retried).resolves.toBe(3);
  });

  it('holds the app’s shutdown until the pass in flight is over', async () => {
    const app = await Test.createTestingModule({
      providers: [{ provide: GatedSweep, useFactory: () => new GatedSweep() }],
    }).compile();
    await app.init();
    const sweep = app.get(GatedSweep);
    const pass = sweep.sweep();
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await quietPeriod(200, 'the app does not finish closing while a pass is in flight');
    expect(closed).toBe(false);
    sweep.open();
    await closing;
    await expect(pass).resolves.toBe(2);
  });
});
