import { hashSecretToken } from '@app/auth';
import { performance } from 'node:perf_hooks';
import { BotTokenUnit, startBotTokenUnit } from '../../../test/bot-token-unit-fixture';
import { BotsStore } from '../bots.store';
import { BotTokenDirectory } from './bot-token-directory';
import { BotTokenService } from './bot-token.service';

/**
 * The real store, with its token reads counted and a load's answer held back until released: what a
 * slow load and a made-up token's cost look like, without a stand-in for PostgreSQL.
 */
class WatchedStore extends BotsStore {
  lookUps = 0;
  running = 0;
  mostAtOnce = 0;
  private hold: Promise<void> | undefined;
  private releaseHold = () => undefined as void;
  answered = Promise.resolve();
  private markAnswered = () => undefined as void;

  holdNextLoad(): void {
    this.hold = new Promise((resolve) => (this.releaseHold = resolve));
    this.answered = new Promise((resolve) => (this.markAnswered = resolve));
  }
  release(): void {
    this.releaseHold();
  }
  override async findByTokenHash(hash: string) {
    this.lookUps += 1;
    return super.findByTokenHash(hash);
  }
  override async currentTokenHashPrefixes(length: number): Promise<string> {
    this.running += 1;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    try {
      const prefixes = await super.currentTokenHashPrefixes(length);
      const hold = this.hold;
      this.hold = undefined;
      this.markAnswered();
      if (hold) await hold;
      return prefixes;
    } finally {
      this.running -= 1;
    }
  }
}

describe('BotTokenDirectory under a slow load', () => {
  let unit: BotTokenUnit;
  let store: WatchedStore;
  beforeAll(async () => {
    unit = await startBotTokenUnit({ BOT_TOKEN_FAILURES_PER_MINUTE: '2' });
    store = new WatchedStore(unit.database);
  });
  afterAll(() => unit.close());

  it('never answers from a load that began before the question, and runs one load at a time', async () => {
    const directory = new BotTokenDirectory(store);
    store.holdNextLoad();
    const first = directory.mayHold(hashSecretToken(`sbot_${'Q'.repeat(43)}`), performance.now());
    await store.answered;
    // Committed after the held load read the table, before the question about it is asked.
    const newer = await unit.insertBot();
    const second = directory.mayHold(hashSecretToken(newer.token), performance.now());
    store.release();
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    expect(store.mostAtOnce).toBe(1);
  });

  it("costs the database no look-up for a made-up token, and counts a token revoked since the directory's load", async () => {
    const directory = new BotTokenDirectory(store);
    const service = new BotTokenService(store, unit.cache, directory, unit.failures);
    const before = store.lookUps;
    expect(await service.findByToken(`sbot_${'M'.repeat(43)}`, '192.0.2.50')).toBeNull();
    expect(store.lookUps).toBe(before);

    const revoked = await unit.insertBot();
    expect(await directory.mayHold(hashSecretToken(revoked.token), performance.now())).toBe(true);
    await unit.dataSource.query(`UPDATE bots SET token_revoked_at = now() WHERE id = $1`, [revoked.id]);
    expect(await service.findByToken(revoked.token, '192.0.2.51')).toBeNull();
    expect(await service.findByToken(revoked.token, '192.0.2.51')).toBeNull();
    await expect(service.findByToken(revoked.token, '192.0.2.51')).rejects.toMatchObject({ status: 429 });
  });
});
