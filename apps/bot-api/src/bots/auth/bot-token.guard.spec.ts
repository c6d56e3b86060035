import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { principalOf } from '@app/auth';
import { ApiError } from '@app/envelope';
import type { Request } from 'express';
import { BotTokenUnit, startBotTokenUnit } from '../../../test/bot-token-unit-fixture';
import { credentialOf } from '../../rate-limits/credential-subject';
import { botOf } from './bot-request';
import { BotTokenGuard } from './bot-token.guard';
import { CheckedTokenGuard, checkedTokenOf } from './checked-token.guard';

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

describe('bot-token guards', () => {
  let unit: BotTokenUnit;
  beforeAll(async () => {
    unit = await startBotTokenUnit();
  });
  afterAll(() => unit.close());

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
      expect([error.code, error.message]).toEqual(['BOT_TOKEN_REQUIRED', 'Authorization: Bearer <bot token> is required']);
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
});
