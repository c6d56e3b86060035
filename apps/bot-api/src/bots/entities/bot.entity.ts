import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A bot as the app reads it: a row of the typed statements of BotsStore, not this entity. */
export type { Bot } from '../bots.store';

export type ReviewStatus = 'pending' | 'approved' | 'rejected';
export type BotStatus = 'enabled' | 'disabled';
export type DeliveryMode = 'webhook' | 'polling';
export type FriendRequestMode = 'auto_accept' | 'auto_reject' | 'manual';

export const REVIEW_STATUSES: readonly ReviewStatus[] = ['pending', 'approved', 'rejected'];
export const BOT_STATUSES: readonly BotStatus[] = ['enabled', 'disabled'];
export const DELIVERY_MODES: readonly DeliveryMode[] = ['webhook', 'polling'];
export const FRIEND_REQUEST_MODES: readonly FriendRequestMode[] = ['auto_accept', 'auto_reject', 'manual'];
export const DEFAULT_BOT_SCOPES: readonly string[] = ['messages:send', 'messages:receive'];

/** Per-bot send quotas; an unset value falls back to the global default. */
export interface BotRateLimits {
  send_per_sec?: number;
  send_per_min?: number;
  send_per_day?: number;
}

/** The `bots` table for migrations and schema documents; statements on it are BotsStore's typed ones. */
@Entity({ name: 'bots' })
export class BotEntity {
  /** 24 lowercase hex characters. */
  @PrimaryColumn({ type: 'varchar', length: 24 })
  id: string;

  /** The developer account that applied for the bot. */
  @Column({ name: 'owner_id', type: 'varchar', length: 128 })
  ownerId: string;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 64, nullable: true })
  username: string | null;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'short_description', type: 'varchar', length: 120, nullable: true })
  shortDescription: string | null;

  @Column({ type: 'text', nullable: true })
  avatar: string | null;

  @Column({ type: 'text', array: true })
  scopes: string[];

  @Column({ name: 'review_status', type: 'varchar', length: 16 })
  reviewStatus: ReviewStatus;

  @Column({ name: 'rejection_reason', type: 'text', nullable: true })
  rejectionReason: string | null;

  @Column({ name: 'reviewed_by', type: 'varchar', length: 128, nullable: true })
  reviewedBy: string | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column({ type: 'varchar', length: 16 })
  status: BotStatus;

  /** The `users` row the bot speaks as in chats; created on approval. */
  @Column({ name: 'system_user_id', type: 'varchar', length: 128, nullable: true })
  systemUserId: string | null;



  @Column({ name: 'supports_inline_queries', type: 'boolean' })
  supportsInlineQueries: boolean;

  @Column({ name: 'friend_request_mode', type: 'varchar', length: 16 })
  friendRequestMode: FriendRequestMode;

  @Column({ name: 'rate_limits', type: 'jsonb' })
  rateLimits: BotRateLimits;


  @Column({ name: 'virtual_members_enabled', type: 'boolean' })
  virtualMembersEnabled: boolean;

  /** SHA-256 hex of the current token; the plaintext is never stored. */
  @Column({ name: 'token_hash', type: 'char', length: 64, nullable: true, select: false })
  tokenHash: string | null;

  @Column({ name: 'token_prefix', type: 'varchar', length: 16, nullable: true })
  tokenPrefix: string | null;

  @Column({ name: 'token_issued_at', type: 'timestamptz', nullable: true })
  tokenIssuedAt: Date | null;

  @Column({ name: 'token_revoked_at', type: 'timestamptz', nullable: true })
  tokenRevokedAt: Date | null;

  /** AES-256-GCM ciphertext of the token issued at approval, destroyed on its one read. */
  @Column({ name: 'one_time_token_ciphertext', type: 'text', nullable: true, select: false })
  oneTimeTokenCiphertext: string | null;

  @Column({ name: 'one_time_token_expires_at', type: 'timestamptz', nullable: true })
  oneTimeTokenExpiresAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
