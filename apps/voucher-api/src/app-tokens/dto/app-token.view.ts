import { ApiProperty } from '@nestjs/swagger';
import { VOUCHER_PERMISSIONS, VoucherPermission } from '../../applications/runtime-route.options';
import type { AppTokenRecord } from '../app-tokens.store';

/** An application token as the console lists it: the prefix only, never the secret. */
export class AppTokenView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ description: 'The first characters of the token, to recognise it in lists', example: 'sop_3kT9wQ2m' })
  prefix: string;

  @ApiProperty({ enum: VOUCHER_PERMISSIONS, isArray: true })
  permissions: VoucherPermission[];

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'null: the token does not expire' })
  expires_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  last_used_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revoked_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

/** The plaintext secret appears in this shape only, in the response that created it. */
export class CreatedAppTokenView extends AppTokenView {
  @ApiProperty({
    description:
      'The plaintext token (`sop_` and base62). Shown in this response only: only its hash is stored, so it cannot ' +
      'be read again; send it as `Authorization: Bearer <token>` on the runtime routes.',
    example: 'sop_3kT9wQ2mZ8xY7vB6nC5dF4gH3jK2lP1qR0sT9uV8wX7',
  })
  token: string;
}

const iso = (date: Date | null): string | null => (date ? date.toISOString() : null);

export function toAppTokenView(token: AppTokenRecord): AppTokenView {
  return {
    id: token.id,
    application_id: token.applicationId,
    name: token.name,
    prefix: token.prefix,
    permissions: token.permissions,
    expires_at: iso(token.expiresAt),
    last_used_at: iso(token.lastUsedAt),
    revoked_at: iso(token.revokedAt),
    created_at: token.createdAt.toISOString(),
  };
}
