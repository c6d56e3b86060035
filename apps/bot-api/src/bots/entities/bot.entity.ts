import { botDeliverySettingSql } from '@app/bot-delivery';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn, VirtualColumn } from 'typeorm';

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

@Entity({ name: 'bots' })
export class Bot {
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

  /** Read with the row from the bot's delivery settings (@app/bot-delivery owns them), never written here. */
  @VirtualColumn({ type: 'varchar', query: (bot) => botDeliverySettingSql(bot, 'delivery_mode') })
  deliveryMode: DeliveryMode;

  /** Remembered from setWebhook / getUpdates; null means every default-included type. */
  @VirtualColumn({ type: 'text', query: (bot) => botDeliverySettingSql(bot, 'allowed_updates') })
  allowedUpdates: string[] | null;

  @Column({ name: 'supports_inline_queries', type: 'boolean' })
  supportsInlineQueries: boolean;

  @Column({ name: 'friend_request_mode', type: 'varchar', length: 16 })
  friendRequestMode: FriendRequestMode;

  @Column({ name: 'rate_limits', type: 'jsonb' })
  rateLimits: BotRateLimits;

  /** Self-healing dead letters: redelivered once, automatically, when the receiver answers 2xx again. */
  @VirtualColumn({ type: 'boolean', query: (bot) => botDeliverySettingSql(bot, 'auto_redeliver_dead_letters') })
  autoRedeliverDeadLetters: boolean;

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

  /** When the developer last changed a delivery setting; the bot's `updated_at` shows the later of the two. */
  @VirtualColumn({ type: 'timestamptz', query: (bot) => botDeliverySettingSql(bot, 'updated_at') })
  deliveryUpdatedAt: Date;
}
