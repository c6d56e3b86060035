import { signAccountJwt } from '@app/auth';
import {
  createEmptyDatabase,
  deleteRedisKeys,
  ServiceProcess,
  startServiceProcess,
  TestDatabase,
  testEnv,
  testRedisPrefix,
} from '@app/testing';
import { until } from './telegram-support';

/** The account secret the test gives the process, rather than relying on its public development default. */
const ACCOUNT_JWT_SECRET = 'telegram-root-logs-account-secret';

/**
 * The request log of the real process, as deployed: a bot token in a Telegram-style path (at the root
 * or under /telegram) is a credential and never reaches a log line.
 */
describe('bot-api request log with the Telegram face at the root', () => {
  let database: TestDatabase;
  let prefix: string;
  let service: ServiceProcess;
  let url: string;

  beforeAll(async () => {
    database = await createEmptyDatabase('bot');
    prefix = testRedisPrefix();
    service = await startServiceProcess(
      'apps/bot-api/src/main.ts',
      testEnv(database.name, prefix, {
        LOG_LEVEL: 'info',
        MIGRATIONS_RUN: 'true',
        REDRIVE_WORKER_ENABLED: 'false',
        ACCOUNT_JWT_SECRET,
      }),
      60_000,
    );
    url = `http://127.0.0.1:${service.port}`;
  }, 90_000);
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    await deleteRedisKeys(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix);
  });

  async function call(
    path: string,
    jwt: string,
    body?: object,
  ): Promise<Record<string, { bot_id: string; one_time_token: string }>> {
    const res = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}`);
    return (await res.json()) as Record<string, { bot_id: string; one_time_token: string }>;
  }

  it('logs root and /telegram paths with the token replaced, for successes and refusals alike', async () => {
    const developer = await signAccountJwt(ACCOUNT_JWT_SECRET, { sub: 'dev-1', name: 'Dev', roles: [] });
    const staff = await signAccountJwt(ACCOUNT_JWT_SECRET, {
      sub: 'staff-1',
      name: 'Staff',
      roles: ['platform_admin'],
    });
    const botId = (await call('/api/v1/bots/my', developer, { name: 'Logged Bot' })).data.bot_id;
    await call(`/api/v1/bots/admin/bots/${botId}/approve`, staff);
    const token = (await call(`/api/v1/bots/my/${botId}/token`, developer)).data.one_time_token;

    expect((await fetch(`${url}/bot${token}/getMe`)).status).toBe(200);
    expect((await fetch(`${url}/bot${token}/sendMessage?chat_id=1&text=hi`)).status).toBe(400);
    expect((await fetch(`${url}/file/bot${token}/00000000-0000-4000-8000-000000000000/x.png`)).status).toBe(404);
    expect((await fetch(`${url}/telegram/bot${token}/getMe`)).status).toBe(200);

    const logged = [
      '/bot[redacted]/getMe',
      '/bot[redacted]/sendMessage',
      '/file/bot[redacted]/',
      '/telegram/bot[redacted]/getMe',
    ];
    await until(async () => (logged.every((path) => service.output().includes(`"url":"${path}`)) ? true : undefined));
    expect(service.output()).not.toContain(token);
    expect(service.output()).not.toContain(token.slice('sbot_'.length));
  }, 60_000);
});
