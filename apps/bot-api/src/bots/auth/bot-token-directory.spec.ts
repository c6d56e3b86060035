import { hashSecretToken } from '@app/auth';
import { performance } from 'node:perf_hooks';
import { BotTokenUnit, startBotTokenUnit } from '../../../test/bot-token-unit-fixture';
import { BotTokenDirectory } from './bot-token-directory';

describe('BotTokenDirectory', () => {
  let unit: BotTokenUnit;
  beforeAll(async () => {
    unit = await startBotTokenUnit();
  });
  afterAll(() => unit.close());

  const unknownHash = (n: number) => hashSecretToken(`sbot_${String(n).padStart(43, 'Z')}`);

  it('holds the current tokens and not unknown or revoked ones', async () => {
    const directory = new BotTokenDirectory(unit.store);
    const current = await unit.insertBot();
    const revoked = await unit.insertBot({ revoked: true });
    expect(await directory.mayHold(hashSecretToken(current.token), performance.now())).toBe(true);
    expect(await directory.mayHold(hashSecretToken(revoked.token), performance.now())).toBe(false);
    expect(await directory.mayHold(unknownHash(1), 0)).toBe(false);
  });

  it('holds every token of a load, not only the first', async () => {
    const directory = new BotTokenDirectory(unit.store);
    const bots = [await unit.insertBot(), await unit.insertBot(), await unit.insertBot()];
    const askedAt = performance.now();
    for (const bot of bots) expect(await directory.mayHold(hashSecretToken(bot.token), askedAt)).toBe(true);
  });

  it('answers a question asked before its last load from that load, and a later one from a new load', async () => {
    const directory = new BotTokenDirectory(unit.store);
    const before = performance.now();
    expect(await directory.mayHold(unknownHash(2), before)).toBe(false);
    const newer = await unit.insertBot();
    expect(await directory.mayHold(hashSecretToken(newer.token), before)).toBe(false);
    expect(await directory.mayHold(hashSecretToken(newer.token), performance.now())).toBe(true);
  });

  it('spaces its loads at least 250 ms apart, and lets waiting questions share one', async () => {
    const directory = new BotTokenDirectory(unit.store);
    const started = performance.now();
    await directory.mayHold(unknownHash(3), performance.now());
    const answers = await Promise.all([
      directory.mayHold(unknownHash(4), performance.now()),
      directory.mayHold(unknownHash(5), performance.now()),
    ]);
    expect(answers).toEqual([false, false]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });
});
