import { Logger } from '@nestjs/common';
import { loadConfig } from '@app/platform';
import type { AttemptRecord, DeliveryDomain } from '@app/bot-delivery';
import { DispatcherConfig } from '../config/dispatcher.config';
import { AttemptRecorder } from './attempt-recorder';

/** A store whose writes finish when the test says so; it records which attempts each write carried. */
class ControlledStore {
  readonly writes: string[][] = [];
  private readonly pending: Array<{ finish: () => void; fail: (error: Error) => void }> = [];

  recordAttempts(records: readonly AttemptRecord[]): Promise<boolean[]> {
    this.writes.push(records.map((r) => r.delivery.id));
    return new Promise((resolve, reject) => {
      this.pending.push({
        finish: () => resolve(records.map((r) => !r.delivery.id.startsWith('stale'))),
        fail: reject,
      });
    });
  }

  finishNext(): void {
    this.pending.shift()?.finish();
  }

  failNext(error: Error): void {
    this.pending.shift()?.fail(error);
  }
}

const record = (id: string) => ({ delivery: { id } }) as AttemptRecord;
const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

function recorder(store: ControlledStore, env: Record<string, string> = {}): AttemptRecorder {
  const config = loadConfig(DispatcherConfig, { WEBHOOK_RECORD_BATCH_WINDOW_MS: '1', ...env });
  return new AttemptRecorder(config, store as unknown as DeliveryDomain);
}

describe('AttemptRecorder', () => {
  it('writes outcomes that finish together with one write, and those finishing meanwhile with the next', async () => {
    const store = new ControlledStore();
    const attempts = recorder(store);
    const first = ['a', 'b', 'c'].map((id) => attempts.record(record(id)));
    await tick(5);
    expect(store.writes).toEqual([['a', 'b', 'c']]);
    const second = ['d', 'stale-e'].map((id) => attempts.record(record(id)));
    await tick(5);
    // One write at a time: d and stale-e wait for the first to commit.
    expect(store.writes).toHaveLength(1);
    store.finishNext();
    await expect(Promise.all(first)).resolves.toEqual([true, true, true]);
    await tick();
    expect(store.writes[1]).toEqual(['d', 'stale-e']);
    store.finishNext();
    await expect(Promise.all(second)).resolves.toEqual([true, false]);
  });

  it('does not resolve an outcome before its write commits, and rejects every outcome of a failed write', async () => {
    const store = new ControlledStore();
    const attempts = recorder(store);
    let settled = false;
    const outcomes = ['a', 'b'].map((id) => attempts.record(record(id)));
    void Promise.allSettled(outcomes).then(() => (settled = true));
    await tick(10);
    expect(settled).toBe(false);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    store.failNext(new Error('connection terminated'));
    for (const outcome of outcomes) await expect(outcome).rejects.toThrow('connection terminated');
    expect(warn).toHaveBeenCalledWith('recording 2 attempt(s) failed: connection terminated');
    warn.mockRestore();
  });

  it('writes again a batch that Postgres chose as a deadlock victim', async () => {
    const store = new ControlledStore();
    const attempts = recorder(store);
    const outcome = attempts.record(record('a'));
    await tick(5);
    store.failNext(Object.assign(new Error('deadlock detected'), { code: '40P01' }));
    await tick();
    expect(store.writes).toEqual([['a'], ['a']]);
    store.finishNext();
    await expect(outcome).resolves.toBe(true);
  });

  it('writes at once when WEBHOOK_RECORD_BATCH_MAX outcomes wait, and never more in one statement', async () => {
    const store = new ControlledStore();
    const attempts = recorder(store, { WEBHOOK_RECORD_BATCH_MAX: '2', WEBHOOK_RECORD_BATCH_WINDOW_MS: '100' });
    const outcomes = ['a', 'b', 'c'].map((id) => attempts.record(record(id)));
    await tick();
    expect(store.writes).toEqual([['a', 'b']]);
    store.finishNext();
    await tick();
    expect(store.writes).toEqual([['a', 'b'], ['c']]);
    store.finishNext();
    await expect(Promise.all(outcomes)).resolves.toEqual([true, true, true]);
  });

  it('on shutdown writes what waits without the window and returns once it is committed', async () => {
    const store = new ControlledStore();
    const attempts = recorder(store, { WEBHOOK_RECORD_BATCH_WINDOW_MS: '100' });
    const outcome = attempts.record(record('a'));
    const stopped = attempts.onModuleDestroy();
    await tick();
    expect(store.writes).toEqual([['a']]);
    store.finishNext();
    await stopped;
    await expect(outcome).resolves.toBe(true);
  });
});
