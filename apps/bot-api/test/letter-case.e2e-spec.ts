import { DataSource } from 'typeorm';
import { API_SECURITY } from '@app/platform';
import { letterCaseProblems } from '@app/testing';
import { BOT_API_DOCS } from '../src/api-docs';
import { ApprovedBot, BotTestContext, createApprovedBot, openPrivateChat, STAFF_ID, startBotApp } from './app-context';

describe('bot-api: letter case is no second spelling of a route', () => {
  let ctx: BotTestContext;
  let bot: ApprovedBot;
  let chatId: string;
  let staff: string;

  beforeAll(async () => {
    ctx = await startBotApp();
    bot = await createApprovedBot(ctx, 'dev-1', { username: 'case_bot' });
    staff = await ctx.jwt(STAFF_ID, 'Staff', ['platform_admin']);
    chatId = await openPrivateChat(ctx, await ctx.jwt('alice', 'Alice'), bot.botId);
  });
  afterAll(() => ctx.close());

  it('answers every route of the OpenAPI document in upper and mixed case 404, or limits, logs and audits it as in lower case (defect 2)', async () => {
    const dataSource = ctx.app.get(DataSource);
    const ids: Record<string, string> = { botId: bot.botId, chatId, token: bot.token, method: 'getMe', path: 'x.jpg' };
    const problems = await letterCaseProblems(ctx.app, {
      spec: BOT_API_DOCS,
      param: (name) => ids[name] ?? '00000000-0000-4000-8000-000000000000',
      credentials: (scheme): Record<string, string> => {
        if (scheme === API_SECURITY.botToken) return { Authorization: `Bearer ${bot.token}` };
        if (scheme === API_SECURITY.serviceToken) return { Authorization: `Bearer ${ctx.config.INTERNAL_API_TOKEN}` };
        if (scheme === API_SECURITY.accountJwt) return { Authorization: `Bearer ${staff}` };
        return {};
      },
      secrets: [bot.token],
      audited: async () => {
        const [row] = await dataSource.query(
          `SELECT (SELECT count(*) FROM virtual_member_audit_log) + (SELECT count(*) FROM staff_audit_log) AS n`,
        );
        return Number(row.n);
      },
    });
    expect(problems).toEqual([]);
  });
});
