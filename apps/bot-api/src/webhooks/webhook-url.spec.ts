import { ApiError } from '@app/envelope';
import { loadConfig } from '@app/platform';
import { BotConfig } from '../config/bot.config';
import { WebhookUrlPolicy } from './webhook-url';

describe('WebhookUrlPolicy', () => {
  const strict = new WebhookUrlPolicy(loadConfig(BotConfig, {}));
  const relaxed = new WebhookUrlPolicy(loadConfig(BotConfig, { WEBHOOK_ALLOW_PRIVATE: 'true' }));

  async function refusal(policy: WebhookUrlPolicy, url: string): Promise<ApiError> {
    const error = await policy.check(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }

  it('accepts an HTTPS URL on a public address', async () => {
    await expect(strict.check('https://93.184.215.14:8443/hook?x=1')).resolves.toBeInstanceOf(URL);
  });

  it.each([
    'http://93.184.215.14/hook',
    'ftp://93.184.215.14/',
    'not a url',
    'https://u:p@93.184.215.14/',
    'https://93.184.215.14/#frag',
  ])('refuses %s with 400 VALIDATION on the url field', async (url) => {
    const error = await refusal(strict, url);
    expect(error).toMatchObject({
      status: 400,
      code: 'VALIDATION',
      details: [{ field: 'url', problem: expect.any(String) }],
    });
  });

  it.each(['https://127.0.0.1/', 'https://10.0.0.5/', 'https://[fe80::1]/', 'https://[::ffff:192.168.0.1]/'])(
    'refuses %s unless WEBHOOK_ALLOW_PRIVATE is set',
    async (url) => {
      expect((await refusal(strict, url)).message).toBe('url must resolve to a public address');
      await expect(relaxed.check(url)).resolves.toBeInstanceOf(URL);
    },
  );
});
