import { BotTestContext, callBot, createApprovedBot, startBotApp } from './app-context';

/** Security review, defect 6: setWebhook must neither reach internal addresses nor reveal which internal names exist. */
describe('webhook address policy at setWebhook', () => {
  let ctx: BotTestContext;
  let token: string;

  beforeAll(async () => {
    ctx = await startBotApp({ WEBHOOK_ALLOW_PRIVATE: 'false', WEBHOOK_DNS_TIMEOUT_MS: '1000' });
    token = (await createApprovedBot(ctx, 'dev-ssrf')).token;
  });
  afterAll(() => ctx.close());

  const setWebhook = (url: string) => callBot(ctx, token, 'setWebhook', { url, secret_token: 'secret-token-123' });

  it('defect 6: answers a host that does not resolve exactly as one that resolves inside the network', async () => {
    const unresolved = await setWebhook('https://no-such-host.invalid/hook');
    const internal = await setWebhook('https://localhost/hook');
    for (const res of [unresolved, internal]) {
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION');
    }
    expect(unresolved.body.message).toBe(internal.body.message);
    expect(internal.body.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it.each([
    ['NAT64 local-use', 'https://[64:ff9b:1::a00:1]/hook'],
    ['6to4', 'https://[2002:a00:1::1]/hook'],
    ['IPv4-compatible', 'https://[::a00:1]/hook'],
    ['site-local', 'https://[fec0::1]/hook'],
  ])('defect 6: refuses a %s address', async (_kind, url) => {
    const res = await setWebhook(url);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION');
  });
});
