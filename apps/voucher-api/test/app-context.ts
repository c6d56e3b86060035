import { displayPrefix, generateSecretToken, hashSecretToken } from '@app/auth';
import { ServiceTestContext, startServiceTestApp } from '@app/testing';
import { DataSource } from 'typeorm';
import { VOUCHER_API_DOCS } from '../src/api-docs';
import { AppModule } from '../src/app.module';
import { VoucherConfig } from '../src/config/voucher.config';
import { voucherMigrations } from '../src/database/migrations';

export type VoucherTestContext = ServiceTestContext<VoucherConfig>;

/** A voucher-api instance on its own freshly migrated database and Redis prefix. */
export function startVoucherApp(extraEnv: Record<string, string> = {}): Promise<VoucherTestContext> {
  return startServiceTestApp({
    service: 'voucher',
    migrations: voucherMigrations,
    schema: VoucherConfig,
    module: (config) => AppModule.forRoot(config),
    env: extraEnv,
    // Every response of every test file is checked against the OpenAPI document when the file ends.
    contract: VOUCHER_API_DOCS,
  });
}

export interface SeededApplication {
  applicationId: string;
  ownerId: string;
  tokenId: string;
  /** The plaintext `sop_` token. */
  token: string;
}

export interface SeedApplicationOptions {
  ownerId?: string;
  name?: string;
  permissions?: string[];
  allowedOrigins?: string[];
  status?: 'active' | 'disabled';
  /** Stored as given: `{}` stands for an application created before the vouchers flag existed. */
  features?: Record<string, unknown>;
}

/** Inserts a user (id = name) into the directory, as an authenticated call would. */
export async function seedUser(ctx: VoucherTestContext, id: string): Promise<void> {
  await ctx.app.get(DataSource).query(`INSERT INTO users (id, name) VALUES ($1, $1) ON CONFLICT (id) DO NOTHING`, [id]);
}

/** An application with one token, inserted directly so runtime tests do not depend on the console routes. */
export async function seedApplication(
  ctx: VoucherTestContext,
  options: SeedApplicationOptions = {},
): Promise<SeededApplication> {
  const ownerId = options.ownerId ?? 'owner-1';
  await seedUser(ctx, ownerId);
  const [row]: Array<{ id: string }> = await ctx.app.get(DataSource).query(
    `INSERT INTO applications (owner_id, name, status, allowed_origins, features)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [
      ownerId,
      options.name ?? 'Test shop',
      options.status ?? 'active',
      options.allowedOrigins ?? ['*'],
      JSON.stringify(options.features ?? { vouchers: true }),
    ],
  );
  const { tokenId, token } = await seedToken(ctx, row.id, { permissions: options.permissions });
  return { applicationId: row.id, ownerId, tokenId, token };
}

export const ALL_VOUCHER_PERMISSIONS = [
  'vouchers:read',
  'vouchers:templates:write',
  'vouchers:issue',
  'vouchers:verify',
  'vouchers:redeem',
  'vouchers:reverse',
];

export async function seedToken(
  ctx: VoucherTestContext,
  applicationId: string,
  options: { permissions?: string[]; expiresAt?: Date; revokedAt?: Date } = {},
): Promise<{ tokenId: string; token: string }> {
  const token = generateSecretToken('sop_');
  const [row]: Array<{ id: string }> = await ctx.app.get(DataSource).query(
    `INSERT INTO app_tokens (application_id, name, token_hash, prefix, permissions, expires_at, revoked_at)
     VALUES ($1, 'test token', $2, $3, $4, $5, $6) RETURNING id`,
    [
      applicationId,
      hashSecretToken(token),
      displayPrefix(token),
      options.permissions ?? ALL_VOUCHER_PERMISSIONS,
      options.expiresAt ?? null,
      options.revokedAt ?? null,
    ],
  );
  return { tokenId: row.id, token };
}

/** The holder's consent that the recipient rule reads. */
export async function seedAuthorization(ctx: VoucherTestContext, userId: string, applicationId: string): Promise<void> {
  await seedUser(ctx, userId);
  await ctx.app
    .get(DataSource)
    .query(`INSERT INTO authorizations (user_id, application_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
      userId,
      applicationId,
    ]);
}
