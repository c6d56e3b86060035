import request from 'supertest';
import { DataSource } from 'typeorm';
import { BotTestContext, createApprovedBot, startBotApp } from './app-context';
import { STAFF } from './staff-deliveries-world';

/** The last error of a dead letter as the dispatcher writes it, and the class staff filter it by. */
const CASES: Array<[string, number | null, string]> = [
  ['no response within 15000 ms', null, 'timeout'],
  ['ECONNREFUSED connect ECONNREFUSED 203.0.113.7:443', null, 'connection_refused'],
  ['UNABLE_TO_VERIFY_LEAF_SIGNATURE fetch failed: unable to verify the first certificate', null, 'tls'],
  ['DEPTH_ZERO_SELF_SIGNED_CERT self-signed certificate', null, 'tls'],
  ['the host resolves only to private or reserved addresses; not connected', null, 'address_refused'],
  ['no resolved address is in allowed_ips; not connected', null, 'address_refused'],
  ['HTTP 410', 410, 'http_410'],
  ['HTTP 404', 404, 'http_4xx'],
  ['HTTP 429', 429, 'http_4xx'],
  ['HTTP 502', 502, 'http_5xx'],
  ['ENOTFOUND getaddrinfo ENOTFOUND hooks.example.com', null, 'other'],
];

describe('error classes of dead letters (staff filter and summary)', () => {
  let ctx: BotTestContext;

  beforeAll(async () => {
    ctx = await startBotApp();
    const bot = await createApprovedBot(ctx, 'dev-classes');
    await ctx.app.get(DataSource).query(
      `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload, status, attempts,
                                       dead_letter_at, last_error, last_status_code)
       SELECT $1, c.seq, gen_random_uuid(), 'message', '{}'::jsonb, 'dead_letter', 5, now(),
              'WEBHOOK_DELIVER_FAILED: 5 attempts failed; last: ' || c.error, c.code
         FROM unnest($2::text[], $3::int[]) WITH ORDINALITY AS c(error, code, seq)`,
      [bot.botId, CASES.map(([error]) => error), CASES.map(([, code]) => code)],
    );
  });
  afterAll(() => ctx.close());

  const staff = async (path: string) =>
    request(ctx.app.getHttpServer())
      .get(`/api/v1/bots/admin/deliveries${path}`)
      .set('Authorization', `Bearer ${await ctx.jwt(STAFF, 'SRE', ['platform_admin'])}`)
      .expect(200);

  it.each(CASES)('classifies "%s" (status %s) as %s', async (error, _code, errorClass) => {
    const res = await staff(`?status=dead_letter&error=${errorClass}&pageSize=100`);
    const errors = res.body.data.items.map((d: { last_error: string; error_class: string }) => [
      d.last_error.replace(/^.*last: /, ''),
      d.error_class,
    ]);
    expect(errors).toContainEqual([error, errorClass]);
    expect(errors.every(([, cls]: [string, string]) => cls === errorClass)).toBe(true);
  });

  it('counts dead letters per class in the summary', async () => {
    const res = await staff('/summary');
    expect(res.body.data.dead_letters_by_error).toEqual({
      timeout: 1,
      connection_refused: 1,
      tls: 2,
      address_refused: 2,
      http_410: 1,
      http_4xx: 2,
      http_5xx: 1,
      other: 1,
    });
  });
});
