import type { BotConfig } from '../config/bot.config';
import type { Bot } from './entities/bot.entity';
import { EffectiveRateLimits, effectiveRateLimits } from './rate-limits';

/** The bot object of the developer and staff routes (snake_case, never a token or its hash). */
export interface BotView {
  bot_id: string;
  owner_id: string;
  name: string;
  username: string | null;
  description: string | null;
  short_description: string | null;
  avatar: string | null;
  scopes: string[];
  review_status: Bot['reviewStatus'];
  rejection_reason: string | null;
  reviewed_at: string | null;
  status: Bot['status'];
  system_user_id: string | null;
  delivery_mode: Bot['deliveryMode'];
  supports_inline_queries: boolean;
  friend_request_mode: Bot['friendRequestMode'];
  rate_limits: EffectiveRateLimits;
  virtual_members_enabled: boolean;
  token_prefix: string | null;
  token_issued_at: string | null;
  token_revoked_at: string | null;
  one_time_token_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

const iso = (value: Date | null): string | null => (value ? value.toISOString() : null);

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
    virtual_members_enabled: bot.virtualMembersEnabled,
    token_prefix: bot.tokenPrefix,
    token_issued_at: iso(bot.tokenIssuedAt),
    token_revoked_at: iso(bot.tokenRevokedAt),
    one_time_token_expires_at: iso(bot.oneTimeTokenExpiresAt),
    created_at: bot.createdAt.toISOString(),
    updated_at: bot.updatedAt.toISOString(),
  };
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}
