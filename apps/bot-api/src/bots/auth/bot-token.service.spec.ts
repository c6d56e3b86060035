import { ApiError } from '@app/envelope';
import { WARM_UP_HEADER, WARM_UP_MARK } from '@app/telemetry';
import type { Request } from 'express';
import { BotTokenUnit, startBotTokenUnit } from '../../../test/bot-token-unit-fixture';
import { clientAddressOf } from './bot-token.service';

const LIMIT = 3;

describe('BotTokenService', () => {
  let unit: BotTokenUnit;
  beforeAll(async () => {
    unit = await startBotTokenUnit({ BOT_TOKEN_FAILURES_PER_MINUTE: String(LIMIT) });
  });
  afterAll(() => unit.close());

  const unknownToken = () => `sbot_${'A'.repeat(43)}`;

  it('finds the bot of a current token, without its hash, and keeps it in the cache', async () => {
    const { id, token } = await unit.insertBot();
    const bot = await unit.service.findByToken(token, '192.0.2.1');
    expect(bot?.id).toBe(id);
    expect(bot?.tokenHash).toBeNull();
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
