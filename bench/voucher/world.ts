import { randomUUID } from 'node:crypto';
import { VOUCHER_PERMISSIONS } from '../../apps/voucher-api/src/applications/runtime-route.options';
import { Accounts, ApiClient, inParallel } from '../lib/api';
import type { RequestShape } from '../lib/load';

export const VOUCHER_API = '/api/v1/open-platform';

/** The data every voucher path works on, all made through the public API. */
export interface VoucherWorld {
  api: ApiClient;
  accounts: Accounts;
  applicationId: string;
  /** The plaintext `sop_` application token. */
  appToken: string;
  oneTemplate: string;
  manyTemplates: string[];
  /** Holders who authorised the application (the recipient rule of issue). */
  users: string[];
}

export interface HeldVoucher {
  id: string;
  qrToken: string;
}

async function activeTemplate(
  world: Pick<VoucherWorld, 'api' | 'accounts' | 'appToken'>,
  tag: string,
): Promise<string> {
  const { api, appToken } = world;
  const template = await api.call('POST', `${VOUCHER_API}/vouchers/templates`, appToken, {
    external_template_id: `bench-${tag}`,
    name: `Bench voucher ${tag}`,
    type: 'gift',
    issuer_name: 'Bench Shop',
    fulfiller_name: 'Bench Shop',
    fulfillment_category: 'offline_service',
    acquisition_source: 'free',
    validity: { days_after_claim: 30 },
    issue_limit: 0,
    per_user_limit: 100,
  });
  await api.call('POST', `${VOUCHER_API}/vouchers/templates/${template.id}/submit`, appToken);
  await api.call('POST', `${VOUCHER_API}/admin/templates/${template.id}/approve`, await world.accounts.admin());
  return template.id as string;
}

/**
 * An owner's application and token (console routes), templates approved by platform staff, and
 * holders who authorised the application (holder routes).
 */
export async function prepareVoucherWorld(
  api: ApiClient,
  accounts: Accounts,
  sizes: { users: number; manyTemplates: number },
): Promise<VoucherWorld> {
  const owner = await accounts.user('bench-owner', 'Bench Owner');
  const application = await api.call('POST', `${VOUCHER_API}/applications`, owner, { name: 'Bench Shop' });
  const token = await api.call('POST', `${VOUCHER_API}/applications/${application.id}/tokens`, owner, {
    name: 'bench backend',
    permissions: [...VOUCHER_PERMISSIONS],
  });
  const partial = { api, accounts, appToken: token.token as string };
  const templates = await inParallel(
    Array.from({ length: sizes.manyTemplates + 1 }, (_, i) => i),
    4,
    (i) => activeTemplate(partial, String(i)),
  );
  const users = Array.from({ length: sizes.users }, (_, i) => `bench-holder-${i}`);
  await inParallel(users, 8, async (user) =>
    api.call('POST', `${VOUCHER_API}/holder/authorizations`, await accounts.user(user), {
      application_id: application.id,
    }),
  );
  return {
    ...partial,
    applicationId: application.id,
    oneTemplate: templates[0],
    manyTemplates: templates.slice(1),
    users,
  };
}

/** Issue requests over `templates`, each with its own external id and Idempotency-Key, recipients in turn. */
export function issueRequests(world: VoucherWorld, templates: string[]): () => RequestShape {
  const run = randomUUID().slice(0, 8);
  let i = 0;
  return () => {
    const n = i++;
    const template = templates[n % templates.length];
    const recipient = world.users[Math.floor(n / templates.length) % world.users.length];
    return {
      method: 'POST',
      path: `${VOUCHER_API}/vouchers/issue`,
      headers: { authorization: `Bearer ${world.appToken}`, 'idempotency-key': `issue-${run}-${n}` },
      body: JSON.stringify({
        template_id: template,
        recipient_user_id: recipient,
        external_issue_id: `iss-${run}-${n}`,
      }),
    };
  };
}

/**
 * The holders' available vouchers with their QR tokens, read as a wallet would (GET /holder/vouchers);
 * `exclude` skips vouchers the bench already used.
 */
export async function availableVouchers(world: VoucherWorld, exclude: Set<string>): Promise<HeldVoucher[]> {
  const perUser = await inParallel(world.users, 8, async (user) => {
    const token = await world.accounts.user(user);
    const found: HeldVoucher[] = [];
    for (let page = 1; ; page++) {
      const data = await world.api.call('GET', `${VOUCHER_API}/holder/vouchers?pageSize=100&page=${page}`, token);
      for (const item of data.items as Array<{ id: string; status: string; qr_token: string | null }>) {
        if (item.status === 'available' && item.qr_token && !exclude.has(item.id)) {
          found.push({ id: item.id, qrToken: item.qr_token });
        }
      }
      if (data.items.length < 100) return found;
    }
  });
  return perUser.flat();
}

export function redeemBody(qrToken: string, order: string): string {
  return JSON.stringify({ credential: { type: 'qr_token', value: qrToken }, external_order_id: order });
}

export function verifyBody(qrToken: string): string {
  return JSON.stringify({ credential: { type: 'qr_token', value: qrToken } });
}
