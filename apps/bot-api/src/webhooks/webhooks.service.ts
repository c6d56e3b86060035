import { Injectable } from '@nestjs/common';
import { SecretCipher } from '@app/auth';
import { deliverJobFor, DeliveryDomain, webhookSecretContext, WebhookFormat } from '@app/bot-delivery';
import { Database, SqlTarget } from '@app/platform';
import { BotTokenCache } from '../bots/auth/bot-token-cache';
import { BotsStore } from '../bots/bots.store';
import { BotConfig } from '../config/bot.config';
import { DeliveryQueue } from '../deliveries/delivery-queue';
import { WebhookInfo } from './dto/webhook-info.view';
import { DEFAULT_MAX_CONNECTIONS, DropPendingDto, SetWebhookDto } from './dto/webhook.dto';
import { WebhookUrlPolicy } from './webhook-url';
import { BotErrors } from '../bot-errors';

const HOUR_MS = 3_600_000;
const unixSeconds = (at: Date | null): number | null => (at ? Math.floor(at.getTime() / 1000) : null);

/** setWebhook / deleteWebhook / getWebhookInfo, for the bot itself and for its developer. */
@Injectable()
export class WebhooksService {
  private readonly cipher: SecretCipher;

  constructor(
    private readonly database: Database,
    private readonly config: BotConfig,
    private readonly urlPolicy: WebhookUrlPolicy,
    private readonly queue: DeliveryQueue,
    private readonly tokenCache: BotTokenCache,
    private readonly delivery: DeliveryDomain,
    private readonly bots: BotsStore,
  ) {
    this.cipher = new SecretCipher(config.WEBHOOK_SECRET_KEY);
  }

  /**
   * Switches the bot to webhook mode. Updates still waiting for getUpdates get a delivery each
   * (unless drop_pending_updates), so switching modes loses nothing.
   */
  async setWebhook(botId: string, dto: SetWebhookDto, format: WebhookFormat = 'native'): Promise<void> {
    const url = await this.urlPolicy.check(dto.url);
    const sealedSecret = this.cipher.encrypt(webhookSecretContext(botId), dto.secret_token);
    await this.database.transaction(async (tx) => {
      const rotation = await this.rotationOf(tx, botId, dto.secret_token);
      await this.delivery.setWebhook(tx, botId, {
        url: url.toString(),
        sealedSecret,
        ...rotation,
        allowedIps: dto.allowed_ips && dto.allowed_ips.length > 0 ? [...new Set(dto.allowed_ips)] : null,
        maxConnections: dto.max_connections ?? DEFAULT_MAX_CONNECTIONS,
        format,
        // Left out, the bot keeps its list; empty means every default type.
        allowedUpdates:
          dto.allowed_updates === undefined
            ? undefined
            : dto.allowed_updates && dto.allowed_updates.length > 0
              ? [...new Set(dto.allowed_updates)]
              : null,
      });
      if (dto.drop_pending_updates) {
        await this.dropPending(tx, botId);
        return;
      }
      const waiting = await this.delivery.deliverBacklog(tx, botId, this.config.UPDATES_RETENTION_HOURS);
      this.queue.enqueueAfterCommit(tx, waiting.map(deliverJobFor));
    });
    this.tokenCache.invalidate(botId);
  }

  /**
   * A new secret keeps the one it replaces valid for the overlap; the same secret keeps a running overlap;
   * a rotation during an overlap replaces the older secret (only the two latest are ever signed with).
   */
  private async rotationOf(
    tx: SqlTarget,
    botId: string,
    newSecret: string,
  ): Promise<{ previousSealedSecret: string | null; previousSecretExpiresAt: Date | null }> {
    const none = { previousSealedSecret: null, previousSecretExpiresAt: null };
    const current = await this.delivery.webhookSecretsForUpdate(tx, botId);
    if (!current?.webhook_secret_ciphertext) return none;
    const context = webhookSecretContext(botId);
    if (this.cipher.decrypt(context, current.webhook_secret_ciphertext) === newSecret) {
      return {
        previousSealedSecret: current.webhook_previous_secret_ciphertext,
        previousSecretExpiresAt: current.webhook_previous_secret_expires_at,
      };
    }
    if (this.config.WEBHOOK_ROTATION_OVERLAP_HOURS === 0) return none;
    return {
      previousSealedSecret: current.webhook_secret_ciphertext,
      previousSecretExpiresAt: new Date(Date.now() + this.config.WEBHOOK_ROTATION_OVERLAP_HOURS * HOUR_MS),
    };
  }

  /**
   * Back to polling: the configuration is removed and open deliveries are withdrawn, so nothing is
   * POSTed any more; their Updates stay unconfirmed for getUpdates unless drop_pending_updates.
   */
  async deleteWebhook(botId: string, dto: DropPendingDto): Promise<void> {
    await this.database.transaction(async (tx) => {
      await this.delivery.clearWebhook(tx, botId, DEFAULT_MAX_CONNECTIONS);
      await this.delivery.withdrawOpen(tx, botId);
      if (dto.drop_pending_updates) await this.dropPending(tx, botId);
    });
    this.tokenCache.invalidate(botId);
  }

  /** drop_pending_updates: nothing waiting is delivered, by either mode. */
  private async dropPending(on: SqlTarget, botId: string): Promise<void> {
    await this.delivery.acknowledgeAll(on, botId);
    await this.delivery.withdrawOpen(on, botId);
  }

  async info(botId: string): Promise<WebhookInfo> {
    const bot = await this.delivery.webhookSettings(botId);
    if (!bot) throw BotErrors.notFound('Bot');
    const webhook = bot.delivery_mode === 'webhook';
    return {
      url: bot.webhook_url ?? '',
      pending_update_count: await this.delivery.pendingCount(botId, webhook, this.config.UPDATES_RETENTION_HOURS),
      last_error_date: bot.webhook_last_error_at ? Math.floor(bot.webhook_last_error_at.getTime() / 1000) : null,
      last_error_message: bot.webhook_last_error_message,
      max_connections: webhook ? bot.webhook_max_connections : null,
      allowed_updates: bot.allowed_updates ?? [],
      allowed_ips: bot.webhook_allowed_ips ?? [],
      platform_egress_ips: this.config.platformEgressIps,
      previous_secret_expires_at: unixSeconds(bot.webhook_previous_secret_expires_at),
      auto_redeliver_dead_letters: bot.auto_redeliver_dead_letters,
    };
  }

  /** Developer route: the same as setWebhook, on one of the caller's approved bots. */
  async setForOwner(ownerId: string, botId: string, dto: SetWebhookDto): Promise<WebhookInfo> {
    await this.assertOwnedApproved(ownerId, botId);
    await this.setWebhook(botId, dto);
    return this.info(botId);
  }

  async deleteForOwner(ownerId: string, botId: string, dto: DropPendingDto): Promise<WebhookInfo> {
    await this.assertOwnedApproved(ownerId, botId);
    await this.deleteWebhook(botId, dto);
    return this.info(botId);
  }

  async infoForOwner(ownerId: string, botId: string): Promise<WebhookInfo> {
    await this.assertOwnedApproved(ownerId, botId);
    return this.info(botId);
  }

  /** 404 unless the bot is the caller's; 409 before approval (a pending bot has no delivery yet). */
  private async assertOwnedApproved(ownerId: string, botId: string): Promise<void> {
    const bot = await this.bots.reviewOf(this.database, botId, ownerId);
    if (!bot) throw BotErrors.notFound('Bot');
    if (bot.review_status !== 'approved') {
      throw BotErrors.error('CONFLICT', 'The bot is not approved yet');
    }
  }
}
