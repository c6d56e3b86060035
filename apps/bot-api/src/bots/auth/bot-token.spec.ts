/*
 * The bot-token checks on one database, change channel and rate-limit store: the guards, the look-up
 * and its lock-out, the directory and the cache. One file, so that a mutant of any of them loads Nest,
 * TypeORM and the test helpers once.
 */
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { hashSecretToken, principalOf } from '@app/auth';
import { ApiError } from '@app/envelope';
import { WARM_UP_HEADER, WARM_UP_MARK } from '@app/telemetry';
import type { Request } from 'express';
import { performance } from 'node:perf_hooks';
import { BotTokenUnit, startBotTokenUnit } from '../../../test/bot-token-unit-fixture';
import { credentialOf } from '../../rate-limits/credential-subject';
import { botOf } from './bot-request';
import { BOT_CHANGES_CHANNEL } from './bot-token-cache';
import { BotTokenDirectory } from './bot-token-directory';
import { BotTokenGuard } from './bot-token.guard';
import { clientAddressOf } from './bot-token.service';
import { CheckedTokenGuard, checkedTokenOf } from './checked-token.guard';

/** Unknown tokens an address may send per minute in these tests. */
const LIMIT = 3;

const request = (over: { authorization?: string; body?: unknown } = {}) =>
  ({
    headers: over.authorization === undefined ? {} : { authorization: over.authorization },
    body: over.body,
    ip: '198.51.100.1',
    socket: {},
  }) as unknown as Request;
const context = (req: Request) => new ExecutionContextHost([req, {}, () => undefined]);

async function refusal(run: () => Promise<unknown>): Promise<ApiError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('bot tokens', () => {
  let unit: BotTokenUnit;
  beforeAll(async () => {
    unit = await startBotTokenUnit({ BOT_TOKEN_FAILURES_PER_MINUTE: String(LIMIT) });
  });
  afterAll(() => unit.close());

  describe('BotTokenService', () => {
    const unknownToken = () => `sbot_${'A'.repeat(43)}`;

    it('finds the bot of a current token, without its hash, and keeps it in the cache', async () => {
      const { id, token } = await unit.insertBot();
      const bot = await unit.service.findByToken(token, '192.0.2.1');
      expect(bot?.id).toBe(id);
      expect(bot).not.toHaveProperty('tokenHash');
      await unit.dataSource.query(`DELETE FROM bots WHERE id = $1`, [id]);
      expect((await unit.service.findByToken(token, '192.0.2.1'))?.id).toBe(id);
    });

    it('finds a bot without an address too, and then counts nothing', async () => {
      const { id, token } = await unit.insertBot();
      expect((await unit.service.findByToken(token))?.id).toBe(id);
      for (let i = 0; i <= LIMIT + 1; i++) expect(await unit.service.findByToken(unknownToken())).toBeNull();
    });

    it.each([
      ['another prefix', `xbot_${'A'.repeat(43)}`],
      ['a short token', `sbot_${'A'.repeat(42)}`],
      ['a long token', `sbot_${'A'.repeat(44)}`],
      ['a character outside base62', `sbot_${'A'.repeat(42)}-`],
      ['something before the prefix', ` sbot_${'A'.repeat(43)}`],
    ])('refuses %s by its shape alone, counting nothing against the address', async (_what, token) => {
      for (let i = 0; i <= LIMIT + 1; i++) expect(await unit.service.findByToken(token, '192.0.2.2')).toBeNull();
    });

    it('refuses a revoked token and counts it against the address', async () => {
      const { token } = await unit.insertBot({ revoked: true });
      for (let i = 0; i < LIMIT; i++) expect(await unit.service.findByToken(token, '192.0.2.3')).toBeNull();
      await expect(unit.service.findByToken(token, '192.0.2.3')).rejects.toMatchObject({ status: 429 });
    });

    it('locks an address out past the limit of unknown tokens, but never refuses a real bot from it', async () => {
      for (let i = 0; i < LIMIT; i++) expect(await unit.service.findByToken(unknownToken(), '192.0.2.4')).toBeNull();
      const refused = await unit.service.findByToken(unknownToken(), '192.0.2.4').catch((error: ApiError) => error);
      expect(refused).toBeInstanceOf(ApiError);
      expect([(refused as ApiError).status, (refused as ApiError).code]).toEqual([429, 'RATE_LIMITED']);
      const { id, token } = await unit.insertBot();
      expect((await unit.service.findByToken(token, '192.0.2.4'))?.id).toBe(id);
      expect(await unit.service.findByToken(unknownToken(), '192.0.2.5')).toBeNull();
    });

    it('finds a token issued after the directory last loaded', async () => {
      await unit.service.findByToken(unknownToken(), '192.0.2.6');
      const { id, token } = await unit.insertBot();
      expect((await unit.service.findByToken(token, '192.0.2.6'))?.id).toBe(id);
    });
  });

  describe('BotTokenGuard', () => {
    const guard = () => new BotTokenGuard(unit.service);

    it('admits an approved, enabled bot and makes it the tenant with its scopes', async () => {
      const { id, token } = await unit.insertBot();
      const req = request({ authorization: `Bearer ${token}` });
      await expect(guard().canActivate(context(req))).resolves.toBe(true);
      expect(botOf(req)?.id).toBe(id);
      expect(principalOf(req)).toEqual({ tenantId: id, permissions: ['messages:send'] });
    });

    it.each([
      ['no Authorization header', undefined],
      ['another scheme', 'Basic abc'],
    ])('answers %s with BOT_TOKEN_REQUIRED', async (_what, authorization) => {
      const error = await refusal(() => guard().canActivate(context(request({ authorization }))));
      expect([error.code, error.message]).toEqual([
        'BOT_TOKEN_REQUIRED',
        'Authorization: Bearer <bot token> is required',
      ]);
    });

    it.each([
      ['an unknown bot token', `Bearer sbot_${'B'.repeat(43)}`],
      ['an application token', `Bearer sop_${'B'.repeat(43)}`],
    ])('answers %s with INVALID_BOT_TOKEN', async (_what, authorization) => {
      const error = await refusal(() => guard().canActivate(context(request({ authorization }))));
      expect([error.code, error.message]).toEqual(['INVALID_BOT_TOKEN', 'Bot token is unknown, revoked or malformed']);
    });

    it.each([
      ['pending review', { review: 'pending', status: 'enabled' }],
      ['disabled', { review: 'approved', status: 'disabled' }],
    ])('answers a bot %s with BOT_NOT_AVAILABLE', async (_what, state) => {
      const { token } = await unit.insertBot(state);
      const req = request({ authorization: `Bearer ${token}` });
      const error = await refusal(() => guard().canActivate(context(req)));
      expect([error.code, error.message]).toEqual(['BOT_NOT_AVAILABLE', 'The bot is not approved or not enabled']);
      expect(principalOf(req)).toBeUndefined();
    });
  });

  describe('CheckedTokenGuard', () => {
    const guard = () => new CheckedTokenGuard(unit.service);

    it("looks the body's token up once and counts the call against the bot it names", async () => {
      const { id, token } = await unit.insertBot();
      const req = request({ body: { token } });
      await expect(guard().canActivate(context(req))).resolves.toBe(true);
      expect(checkedTokenOf(req)?.bot?.id).toBe(id);
      expect(credentialOf(req)).toBe(`bot:${id}`);
    });

    it('keeps an unknown token as no bot, counted against the address', async () => {
      const req = request({ body: { token: `sbot_${'C'.repeat(43)}` } });
      await expect(guard().canActivate(context(req))).resolves.toBe(true);
      expect(checkedTokenOf(req)).toEqual({ bot: null });
      expect(credentialOf(req)).toBeUndefined();
    });

    it.each([
      ['no body', undefined],
      ['a body without a token', {}],
      ['a token that is not a string', { token: 7 }],
    ])('leaves %s to validation without a look-up', async (_what, body) => {
      const req = request({ body });
      await expect(guard().canActivate(context(req))).resolves.toBe(true);
      expect(checkedTokenOf(req)).toBeUndefined();
    });
  });

  describe('BotTokenCache', () => {
    it('serves a bot until a change to it is announced', async () => {
      const { id, token } = await unit.insertBot();
      const bot = await unit.service.findByToken(token);
      await unit.dataSource.query(`UPDATE bots SET name = 'Renamed' WHERE id = $1`, [id]);
      expect((await unit.service.findByToken(token))?.name).toBe(bot?.name);
      unit.cache.invalidate(id);
      expect((await unit.service.findByToken(token))?.name).toBe('Renamed');
    });
  });

  describe('BotTokenDirectory', () => {
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

    it('answers a token it holds at once, without waiting for a load', async () => {
      const directory = new BotTokenDirectory(unit.store);
      const { token } = await unit.insertBot();
      expect(await directory.mayHold(hashSecretToken(token), performance.now())).toBe(true);
      // A load just ran, so the next one may not start for 250 ms: only the held prefix answers sooner.
      const asked = performance.now();
      expect(await directory.mayHold(hashSecretToken(token), asked)).toBe(true);
      expect(performance.now() - asked).toBeLessThan(250);
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
});

describe('BOT_CHANGES_CHANNEL', () => {
  it('is the channel every service announces bot changes on', () => {
    expect(BOT_CHANGES_CHANNEL).toBe('bot-api:bot-changed');
  });
});

describe('clientAddressOf', () => {
  const req = (over: object) => ({ headers: {}, socket: { remoteAddress: '10.0.0.9' }, ...over }) as unknown as Request;

  it("is the client's address through trusted proxies, else the socket's", () => {
    expect(clientAddressOf(req({ ip: '203.0.113.7' }))).toBe('203.0.113.7');
    expect(clientAddressOf(req({}))).toBe('10.0.0.9');
  });

  it("is none for the app's own warm-up", () => {
    expect(clientAddressOf(req({ ip: '127.0.0.1', headers: { [WARM_UP_HEADER]: WARM_UP_MARK } }))).toBeUndefined();
  });
});
