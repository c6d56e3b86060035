import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { CHANNEL_BUS, type ChannelBus } from '@app/platform';
import { DeliveryDomain, isBotAvailable } from '@app/bot-delivery';
import { BOT_CHANGES_CHANNEL, BotTokenCache } from '../bots/auth/bot-token-cache';
import type { Bot } from '../bots/entities/bot.entity';
import { BotsStore } from '../bots/bots.store';
import { BotConfig } from '../config/bot.config';
import { GetUpdatesDto } from './dto/get-updates.dto';
import { UpdateView } from './dto/update.view';
import { PollWaiter } from './poll-waiter';
import { POLLS_CHANNEL, UPDATES_CHANNEL } from '../updates/update-notifier';
import { UpdatesMetrics } from '../updates/updates.metrics';
import { BotErrors } from '../bot-errors';

export const DEFAULT_UPDATES_LIMIT = 100;

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

interface PollAnnouncement {
  botId: string;
  pollId: string;
  startedAt: number;
}

/**
 * getUpdates with long polling. Waiting calls sleep on an in-process waiter that a message on the
 * channel bus wakes (published after the Update's transaction committed); a newer call of the same bot, on any instance,
 * ends the older one with 409; shutdown releases every waiting call at once. A change to the bot's row
 * (published by BotTokenCache) wakes it too, and every wake-up checks the token and the bot again, so
 * rotation, revocation, disabling or setWebhook end a waiting call at once instead of up to 50 s later
 * (within UPDATES_POLL_RECHECK_MS when BOT_TOKEN_CACHE_MS is 0, as nothing is published then).
 */
@Injectable()
export class PollingService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(PollingService.name);
  private readonly waiters = new Map<string, PollWaiter>();
  private closing = false;

  constructor(
    @Inject(CHANNEL_BUS) private readonly bus: ChannelBus,
    private readonly config: BotConfig,
    private readonly metrics: UpdatesMetrics,
    private readonly tokenCache: BotTokenCache,
    private readonly bots: BotsStore,
    private readonly delivery: DeliveryDomain,
  ) {}

  async onModuleInit(): Promise<void> {
    const wake = (botId: string) => this.waiters.get(botId)?.wake();
    // A bot's changed row wakes its poll too, which then checks its token and the bot again.
    await Promise.all([
      this.bus.subscribe(UPDATES_CHANNEL, wake),
      this.bus.subscribe(BOT_CHANGES_CHANNEL, wake),
      this.bus.subscribe(POLLS_CHANNEL, (message) => this.onPollAnnounced(message)),
    ]);
  }

  onModuleDestroy(): void {
    this.closing = true;
    for (const waiter of this.waiters.values()) waiter.wake();
  }

  /** `tokenHash` is the hash of the token the call authenticated with, checked again while it waits. */
  async getUpdates(bot: Bot, tokenHash: string, dto: GetUpdatesDto): Promise<UpdateView[]> {
    if (bot.deliveryMode === 'webhook') throw webhookModeConflict();
    if (dto.allowed_updates !== undefined) await this.rememberAllowedUpdates(bot, dto.allowed_updates);
    if (dto.offset !== undefined) await this.acknowledgeBelow(bot.id, dto.offset);

    const waiter = this.register(bot.id);
    try {
      const deadline = Date.now() + (dto.timeout ?? 0) * 1000;
      for (;;) {
        waiter.arm();
        const updates = await this.pending(bot.id, dto.offset, dto.limit ?? DEFAULT_UPDATES_LIMIT);
        this.assertCurrent(waiter);
        if (updates.length > 0 || this.closing || Date.now() >= deadline) {
          this.metrics.returned.observe(updates.length);
          return updates;
        }
        this.metrics.waiting.inc();
        try {
          await waiter.wait(Math.min(deadline - Date.now(), this.config.UPDATES_POLL_RECHECK_MS));
        } finally {
          this.metrics.waiting.dec();
        }
        this.assertCurrent(waiter);
        if (this.closing) return [];
        await this.assertStillAuthorized(bot.id, tokenHash);
      }
    } finally {
      if (this.waiters.get(bot.id) === waiter) this.waiters.delete(bot.id);
    }
  }

  /**
   * Telegram's negative offset: the last `keep` pending Updates stay, every earlier one is confirmed.
   * Refused like getUpdates itself while a webhook is set.
   */
  async forgetAllButLast(bot: Bot, keep: number): Promise<void> {
    if (bot.deliveryMode === 'webhook') throw webhookModeConflict();
    await this.delivery.acknowledgeAllButLast(bot.id, keep);
  }

  private assertCurrent(waiter: PollWaiter): void {
    if (waiter.superseded) {
      throw BotErrors.error('CONFLICT', 'Terminated by another getUpdates request of this bot');
    }
  }

  /** What the token guard and the webhook-mode check decided at the start, read again from the database. */
  private async assertStillAuthorized(botId: string, tokenHash: string): Promise<void> {
    const current = await this.bots.findByTokenHash(tokenHash);
    if (!current || current.id !== botId) {
      throw BotErrors.error('INVALID_BOT_TOKEN', 'Bot token is unknown, revoked or malformed');
    }
    if (!isBotAvailable(current)) throw BotErrors.error('BOT_NOT_AVAILABLE', 'The bot is not approved or not enabled');
    if (current.deliveryMode === 'webhook') throw webhookModeConflict();
  }

  private register(botId: string): PollWaiter {
    const waiter = new PollWaiter(botId);
    this.waiters.get(botId)?.supersede();
    this.waiters.set(botId, waiter);
    const announcement: PollAnnouncement = { botId, pollId: waiter.id, startedAt: waiter.startedAt };
    // Not awaited: the local predecessor is already superseded, other instances learn it a moment later.
    // Without the bus only the cross-instance 409 is lost; the Updates themselves come from PostgreSQL.
    void this.bus
      .publish(POLLS_CHANNEL, JSON.stringify(announcement))
      .catch((error: Error) => this.logger.warn(`poll announcement not published: ${error.message}`));
    return waiter;
  }

  private onPollAnnounced(message: string): void {
    let announcement: PollAnnouncement;
    try {
      announcement = JSON.parse(message) as PollAnnouncement;
    } catch {
      return;
    }
    const local = this.waiters.get(announcement.botId);
    if (local && local.id !== announcement.pollId && local.isOlderThan(announcement.startedAt, announcement.pollId)) {
      local.supersede();
    }
  }

  /** Written only when it differs, so a poller repeating the same list on every call costs no write. */
  private async rememberAllowedUpdates(bot: Bot, allowed: string[]): Promise<void> {
    // An empty list means "every default type", stored as null like a bot that never chose.
    const wanted = allowed.length > 0 ? [...new Set(allowed)] : null;
    if (sameList(wanted, bot.allowedUpdates)) return;
    await this.delivery.setAllowedUpdates(bot.id, wanted);
    this.tokenCache.invalidate(bot.id);
  }

  /** update_seq starts at 1, so an offset of 1 or less confirms nothing and costs no statement. */
  private async acknowledgeBelow(botId: string, offset: number): Promise<void> {
    if (offset <= 1) return;
    await this.delivery.acknowledgeBelow(botId, offset);
  }

  private async pending(botId: string, offset: number | undefined, limit: number): Promise<UpdateView[]> {
    const rows = await this.delivery.pendingUpdates<Omit<UpdateView, 'update_seq'>>(
      botId,
      offset ?? 0,
      this.config.UPDATES_RETENTION_HOURS,
      limit,
    );
    return rows.map((row) => ({ ...row.payload, update_seq: Number(row.update_seq) }));
  }
}

function webhookModeConflict(): Error {
  return BotErrors.error('CONFLICT', 'getUpdates is unavailable while a webhook is set; call deleteWebhook first');
}
