import { PageOf } from '@app/platform';
import { ApiProperty } from '@nestjs/swagger';
import type { BotConfig } from '../config/bot.config';
import {
  Bot,
  BOT_STATUSES,
  BotStatus,
  DELIVERY_MODES,
  DeliveryMode,
  FRIEND_REQUEST_MODES,
  FriendRequestMode,
  REVIEW_STATUSES,
  ReviewStatus,
} from './entities/bot.entity';
import { effectiveRateLimits } from './rate-limits';

export class RateLimitsView {
  @ApiProperty({ type: 'integer', minimum: 1 })
  send_per_sec: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  send_per_min: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  send_per_day: number;
}

/** The bot object of the developer and staff routes (snake_case, never a token or its hash). */
export class BotView {
  @ApiProperty({ pattern: '^[0-9a-f]{24}$' })
  bot_id: string;

  @ApiProperty({ description: 'The developer account that applied' })
  owner_id: string;

  @ApiProperty({ maxLength: 100 })
  name: string;

  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 64,
    description:
      'Null only while an application that chose none waits for review: approval gives it one derived from its name',
  })
  username: string | null;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: String, nullable: true, maxLength: 120 })
  short_description: string | null;

  @ApiProperty({ type: String, nullable: true })
  avatar: string | null;

  @ApiProperty({ type: [String], example: ['messages:send', 'messages:receive'] })
  scopes: string[];

  @ApiProperty({ enum: REVIEW_STATUSES })
  review_status: ReviewStatus;

  @ApiProperty({ type: String, nullable: true })
  rejection_reason: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  reviewed_at: string | null;

  @ApiProperty({ enum: BOT_STATUSES })
  status: BotStatus;

  @ApiProperty({ type: String, nullable: true, description: 'The user the bot speaks as; set at approval' })
  system_user_id: string | null;

  @ApiProperty({ enum: DELIVERY_MODES })
  delivery_mode: DeliveryMode;

  @ApiProperty()
  supports_inline_queries: boolean;

  @ApiProperty({ enum: FRIEND_REQUEST_MODES })
  friend_request_mode: FriendRequestMode;

  @ApiProperty({ type: RateLimitsView, description: 'The quotas in force: own values, else the global defaults' })
  rate_limits: RateLimitsView;

  @ApiProperty({
    description:
      'Self-healing dead letters: when the webhook answers 2xx again, dead letters are redelivered automatically, once each',
  })
  auto_redeliver_dead_letters: boolean;

  @ApiProperty()
  virtual_members_enabled: boolean;

  @ApiProperty({ type: String, nullable: true, description: 'Start of the current token, for recognising it' })
  token_prefix: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  token_issued_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  token_revoked_at: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Until when the approval token can be read once',
  })
  one_time_token_expires_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

/** A change of the bot's delivery settings (setWebhook, getUpdates' allowed_updates) changes the bot. */
const lastChangeOf = (bot: Bot): Date =>
  bot.deliveryUpdatedAt && bot.deliveryUpdatedAt > bot.updatedAt ? bot.deliveryUpdatedAt : bot.updatedAt;

export function botView(bot: Bot, config: BotConfig): BotView {
  return {
    bot_id: bot.id,
    owner_id: bot.ownerId,
    name: bot.name,
    username: bot.username,
    description: bot.description,
    short_description: bot.shortDescription,
    avatar: bot.avatar,
    scopes: bot.scopes,
    review_status: bot.reviewStatus,
    rejection_reason: bot.rejectionReason,
    reviewed_at: iso(bot.reviewedAt),
    status: bot.status,
    system_user_id: bot.systemUserId,
    delivery_mode: bot.deliveryMode,
    supports_inline_queries: bot.supportsInlineQueries,
    friend_request_mode: bot.friendRequestMode,
    rate_limits: effectiveRateLimits(bot.rateLimits, config),
    auto_redeliver_dead_letters: bot.autoRedeliverDeadLetters,
    virtual_members_enabled: bot.virtualMembersEnabled,
    token_prefix: bot.tokenPrefix,
    token_issued_at: iso(bot.tokenIssuedAt),
    token_revoked_at: iso(bot.tokenRevokedAt),
    one_time_token_expires_at: iso(bot.oneTimeTokenExpiresAt),
    created_at: bot.createdAt.toISOString(),
    updated_at: lastChangeOf(bot).toISOString(),
  };
}

export class BotPage extends PageOf(BotView) {}

/** A token in plaintext, shown only in the response that issues or reads it. */
export class IssuedToken {
  @ApiProperty({ description: 'The bot token (sbot_…); store it now, it is not shown again' })
  one_time_token: string;

  @ApiProperty({ description: 'Start of the token, as the bot list shows it' })
  token_prefix: string;
}

export class RevokedTokenView {
  @ApiProperty({ enum: [true] })
  revoked: true;
}
