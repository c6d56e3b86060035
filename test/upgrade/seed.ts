import { signAccountJwt } from '@app/auth';
import { Answer, ApiClient, VoucherSetup, VOUCHERS_PER_HOLDER } from './traffic';

/** A step of the setup must succeed: there is no traffic to speak of without it. */
function must(answer: Answer, status: number, what: string): Answer {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer;
}

const jwt = (secret: string, sub: string, roles: string[] = []) => signAccountJwt(secret, { sub, name: sub, roles });

const API = '/api/v1/open-platform';

/**
 * Through the public routes, as the README's walk does: an application and its token and an active
 * template; each redeem loop brings its own holders (see redeemCycle).
 */
export async function seedVouchers(api: ApiClient, secret: string, loops: number): Promise<VoucherSetup[]> {
  const owner = await jwt(secret, 'upgrade-owner');
  const staff = await jwt(secret, 'upgrade-staff', ['platform_admin']);
  const application = must(
    await api.call('POST', `${API}/applications`, { token: owner, body: { name: 'Upgrade shop' } }),
    201,
    'create the application',
  ).body.data;
  const appToken: string = must(
    await api.call('POST', `${API}/applications/${application.id}/tokens`, {
      token: owner,
      body: { name: 'till', permissions: ['vouchers:templates:write', 'vouchers:issue', 'vouchers:redeem'] },
    }),
    201,
    'create the application token',
  ).body.data.token;
  const templateId: string = must(
    await api.call('POST', `${API}/vouchers/templates`, {
      token: appToken,
      body: {
        external_template_id: 'upgrade-latte',
        name: 'Free latte',
        type: 'gift',
        issuer_name: 'Upgrade shop',
        fulfiller_name: 'Upgrade shop',
        fulfillment_category: 'offline_service',
        acquisition_source: 'merchant_campaign',
        validity: { days_after_claim: 30 },
        issue_limit: 0,
        per_user_limit: VOUCHERS_PER_HOLDER,
      },
    }),
    201,
    'create the template',
  ).body.data.id;
  must(await api.call('POST', `${API}/vouchers/templates/${templateId}/submit`, { token: appToken }), 200, 'submit');
  must(await api.call('POST', `${API}/admin/templates/${templateId}/approve`, { token: staff }), 200, 'approve');
  const jwts = new Map<string, Promise<string>>();
  const jwtOf = (user: string) => {
    if (!jwts.has(user)) jwts.set(user, jwt(secret, user));
    return jwts.get(user) as Promise<string>;
  };
  return Array.from({ length: loops }, (_, i) => ({
    appToken,
    applicationId: application.id,
    templateId,
    loop: i + 1,
    jwtOf,
  }));
}

export interface SeededBot {
  token: string;
  /** The user who writes to the bot, and their private chat with it. */
  user: { jwt: string; chatId: string };
}

/** A bot applied for, approved and its token read, with a user's private chat with it. */
export async function seedBot(api: ApiClient, secret: string, name: string): Promise<SeededBot> {
  const developer = await jwt(secret, `upgrade-developer-${name}`);
  const staff = await jwt(secret, 'upgrade-staff', ['platform_admin']);
  const userJwt = await jwt(secret, `upgrade-user-${name}`);
  const bots = '/api/v1/bots';
  const botId: string = must(
    await api.call('POST', `${bots}/my`, { token: developer, body: { name } }),
    201,
    `apply for ${name}`,
  ).body.data.bot_id;
  must(await api.call('POST', `${bots}/admin/bots/${botId}/approve`, { token: staff }), 200, `approve ${name}`);
  const token: string = must(
    await api.call('POST', `${bots}/my/${botId}/token`, { token: developer }),
    200,
    `read the token of ${name}`,
  ).body.data.one_time_token;
  const chatId: string = must(
    await api.call('POST', `${bots}/client/chats/private`, { token: userJwt, body: { bot_id: botId } }),
    201,
    `open a chat with ${name}`,
  ).body.data.id;
  return { token, user: { jwt: userJwt, chatId } };
}
