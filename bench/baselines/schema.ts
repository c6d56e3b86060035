import { createHash, createHmac } from 'node:crypto';
import type { Client } from 'pg';

/**
 * The hand-written baselines' own database: the columns, constraints and indexes the services'
 * hot paths touch, copied from the services' migrations, and nothing else.
 */
export const BASELINE_SCHEMA = `
  CREATE TABLE applications (
    id     uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    status varchar(16) NOT NULL DEFAULT 'active'
  );
  CREATE TABLE app_tokens (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    application_id uuid NOT NULL REFERENCES applications (id),
    token_hash     char(64) NOT NULL UNIQUE,
    permissions    text[] NOT NULL,
    expires_at     timestamptz,
    revoked_at     timestamptz
  );
  CREATE TABLE vouchers (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    application_id    uuid NOT NULL REFERENCES applications (id),
    template_id       uuid NOT NULL,
    recipient_user_id varchar(128) NOT NULL,
    status            varchar(16) NOT NULL DEFAULT 'available',
    valid_from        timestamptz NOT NULL,
    valid_to          timestamptz NOT NULL,
    qr_token_hash     char(64) NOT NULL UNIQUE,
    issued_at         timestamptz NOT NULL DEFAULT now(),
    redeemed_at       timestamptz,
    updated_at        timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE redemptions (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    application_id    uuid NOT NULL REFERENCES applications (id),
    voucher_id        uuid NOT NULL REFERENCES vouchers (id),
    external_order_id varchar(128) NOT NULL,
    occurred_at       timestamptz NOT NULL,
    status            varchar(16) NOT NULL DEFAULT 'succeeded',
    created_at        timestamptz NOT NULL DEFAULT now()
  );
  CREATE UNIQUE INDEX redemptions_one_standing ON redemptions (voucher_id) WHERE status = 'succeeded';
  CREATE TABLE idempotency_keys (
    scope           varchar(128) NOT NULL,
    key             varchar(255) NOT NULL,
    route           varchar(300) NOT NULL,
    fingerprint     char(64) NOT NULL,
    status          varchar(16) NOT NULL,
    response_status integer,
    response_body   text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE TABLE bots (
    id         varchar(24) PRIMARY KEY,
    token_hash char(64) NOT NULL UNIQUE,
    status     varchar(16) NOT NULL DEFAULT 'enabled'
  );
  CREATE TABLE chat_members (
    chat_id uuid NOT NULL,
    user_id varchar(128) NOT NULL,
    state   varchar(16) NOT NULL DEFAULT 'active',
    PRIMARY KEY (chat_id, user_id)
  );
  CREATE TABLE messages (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id    uuid NOT NULL,
    sender_id  varchar(128) NOT NULL,
    kind       varchar(16) NOT NULL,
    text       text,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX messages_chat ON messages (chat_id, id DESC);
  CREATE TABLE outbox (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    message_id bigint NOT NULL REFERENCES messages (id),
    payload    jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE deliveries (
    id               bigint PRIMARY KEY,
    payload          jsonb NOT NULL,
    status           varchar(16) NOT NULL DEFAULT 'pending',
    attempts         integer NOT NULL DEFAULT 0,
    last_status_code integer,
    updated_at       timestamptz NOT NULL DEFAULT now()
  );
`;

/** What the baselines store for a secret token: its SHA-256, as the services do. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The voucher baseline's lookup HMAC of a QR token. */
export function qrTokenHash(lookupKey: string, qrToken: string): string {
  return createHmac('sha256', lookupKey).update(`qr:${qrToken}`).digest('hex');
}

export const BASELINE_LOOKUP_KEY = 'baseline-lookup-key';
export const BASELINE_APP_TOKEN = 'sop_baseline_token_0123456789abcdef';
export const BASELINE_BOT_TOKEN = 'sbot_baseline_token_0123456789abcdef';
export const BASELINE_BOT_ID = 'ba5e11ne0000000000000001';

export function baselineQrToken(index: number): string {
  return `vq_baseline_${index}`;
}

/** One application and token, and `vouchers` available vouchers whose QR tokens are baselineQrToken(i). */
export async function seedVoucherBaseline(db: Client, vouchers: number): Promise<void> {
  const [{ id }] = (await db.query(`INSERT INTO applications DEFAULT VALUES RETURNING id`)).rows;
  await db.query(`INSERT INTO app_tokens (application_id, token_hash, permissions) VALUES ($1, $2, $3)`, [
    id,
    tokenHash(BASELINE_APP_TOKEN),
    ['vouchers:verify', 'vouchers:redeem'],
  ]);
  // HMACs are computed here (the lookup key is the baseline's), inserted in one statement per batch.
  for (let start = 0; start < vouchers; start += 5000) {
    const hashes: string[] = [];
    for (let i = start; i < Math.min(vouchers, start + 5000); i++) {
      hashes.push(qrTokenHash(BASELINE_LOOKUP_KEY, baselineQrToken(i)));
    }
    await db.query(
      `INSERT INTO vouchers (application_id, template_id, recipient_user_id, valid_from, valid_to, qr_token_hash)
       SELECT $1, gen_random_uuid(), 'baseline-user', now() - interval '1 day', now() + interval '30 days', h
         FROM unnest($2::text[]) AS h`,
      [id, hashes],
    );
  }
}

/** One enabled bot that is a member of `chats` private chats; returns the chat ids. */
export async function seedSendBaseline(db: Client, chats: number): Promise<string[]> {
  await db.query(`INSERT INTO bots (id, token_hash) VALUES ($1, $2)`, [BASELINE_BOT_ID, tokenHash(BASELINE_BOT_TOKEN)]);
  const rows = (
    await db.query(
      `INSERT INTO chat_members (chat_id, user_id) SELECT gen_random_uuid(), $1 FROM generate_series(1, $2)
       RETURNING chat_id`,
      [BASELINE_BOT_ID, chats],
    )
  ).rows as Array<{ chat_id: string }>;
  return rows.map((row) => row.chat_id);
}
