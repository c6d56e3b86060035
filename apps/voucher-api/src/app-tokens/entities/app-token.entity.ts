import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { VoucherPermission } from '../../applications/runtime-route.options';

/** An application token (`sop_…`); only the SHA-256 of the secret is stored. */
@Entity({ name: 'app_tokens' })
export class AppToken {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ name: 'token_hash', type: 'char', length: 64 })
  tokenHash: string;

  /** The start of the token, safe to show in list views. */
  @Column({ type: 'varchar', length: 32 })
  prefix: string;

  @Column({ type: 'text', array: true, default: () => `'{}'` })
  permissions: VoucherPermission[];

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
