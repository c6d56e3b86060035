import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { ApiError } from '@app/envelope';
import { SecretCipher } from '@app/auth';
import { webhookSecretContext } from '@app/webhook-queue';
import { DataSource, EntityManager } from 'typeorm';
import { BotTokenCache } from '../bot-auth/bot-token-cache';
import { BotConfig } from '../config/bot.config';
import { DeliveryQueue } from '../deliveries/delivery-queue';
import { DEFAULT_MAX_CONNECTIONS, DropPendingDto, SetWebhookDto } from './dto/webhook.dto';
import { WebhookUrlPolicy } from './webhook-url';

/** getWebhookInfo (Telegram's shape plus allowed_ips and platform_egress_ips). */
export interface WebhookInfo {
  url: string;
  has_custom_certificate: false;
  pending_update_count: number;
  /** Unix seconds, as in Telegram. */
  last_error_date: number | null;
  last_error_message: string | null;
  max_connections: number | null;
  allowed_updates: string[];
  allowed_ips: string[];
  platform_egress_ips: string[];
}

interface WebhookRow {
  delivery_mode: string;
  webhook_url: string | null;
  webhook_allowed_ips: string[] | null;
  webhook_max_connections: number;
  webhook_last_error_at: Date | null;
  webhook_last_error_message: string | null;
  allowed_updates: string[] | null;
}

/** setWebhook / deleteWebhook / getWebhookInfo, for the bot itself and for its developer. */
@Injectable()
export class WebhooksService {
  private readonly cipher: SecretCipher;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly config: BotConfig,
    private readonly urlPolicy: WebhookUrlPolicy,
    private readonly queue: DeliveryQueue,
    private readonly tokenCache: BotTokenCache,
  ) {
    this.cipher = new SecretCipher(config.WEBHOOK_SECRET_KEY);
  }

  /**
   * Switches the bot to webhook mode. Updates still waiting for getUpdates get a delivery each
   * (unless drop_pending_updates), so switching modes loses nothing.
   */
  async setWebhook(botId: string, dto: SetWebhookDto): Promise<void> {
    const url = await this.urlPolicy.check(dto.url);
    const sealedSecret = this.cipher.encrypt(webhookSecretContext(botId), dto.secret_token);
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE bots SET delivery_mode = 'webhook', webhook_url = $2, webhook_secret_ciphertext = $3,
                webhook_allowed_ips = $4, webhook_max_connections = $5,
                allowed_updates = CASE WHEN $6::boolean THEN $7::text[] ELSE allowed_updates END,
                updated_at = now()
          WHERE id = $1`,
        [
          botId,
          url.toString(),
          sealedSecret,
          dto.allowed_ips && dto.allowed_ips.length > 0 ? [...new Set(dto.allowed_ips)] : null,
          dto.max_connections ?? DEFAULT_MAX_CONNECTIONS,
          dto.allowed_updates !== undefined,
          dto.allowed_updates && dto.allowed_updates.length > 0 ? [...new Set(dto.allowed_updates)] : null,
        ],
      );
      if (dto.drop_pending_updates) {
        await this.dropPending(manager, botId);
        return;
      }
      const waiting: Array<{ id: string; series: number }> = await manager.query(
        `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
         SELECT bot_id, update_seq, update_id, type, payload FROM updates
          WHERE bot_id = $1 AND NOT acknowledged AND created_at > now() - make_interval(hours => $2)
          ORDER BY update_seq
         ON CONFLICT (update_id) DO NOTHING
         RETURNING id, series`,
        [botId, this.config.UPDATES_RETENTION_HOURS],
      );
      this.queue.enqueueAfterCommit(
        manager,
        waiting.map((row) => ({ deliveryId: row.id, series: Number(row.series), priorAttempts: 0 })),
      );
    });
    this.tokenCache.invalidate(botId);
  }

  /**
   * Back to polling: the configuration is removed and open deliveries are withdrawn, so nothing is
   * POSTed any more; their Updates stay unconfirmed for getUpdates unless drop_pending_updates.
   */
  async deleteWebhook(botId: string, dto: DropPendingDto): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await manager.query(
        `UPDATE bots SET delivery_mode = 'polling', webhook_url = NULL, webhook_secret_ciphertext = NULL,
                webhook_allowed_ips = NULL, webhook_max_connections = $2,
                webhook_last_error_at = NULL, webhook_last_error_message = NULL, updated_at = now()
          WHERE id = $1`,
        [botId, DEFAULT_MAX_CONNECTIONS],
      );
      await manager.query(`DELETE FROM webhook_deliveries WHERE bot_id = $1 AND status IN ('pending', 'retrying')`, [
        botId,
      ]);
      if (dto.drop_pending_updates) await this.dropPending(manager, botId);
    });
    this.tokenCache.invalidate(botId);
  }

  async info(botId: string): Promise<WebhookInfo> {
    const rows: WebhookRow[] = await this.dataSource.query(
      `SELECT delivery_mode, webhook_url, webhook_allowed_ips, webhook_max_connections,
              webhook_last_error_at, webhook_last_error_message, allowed_updates
         FROM bots WHERE id = $1`,
      [botId],
    );
    if (rows.length === 0) throw ApiError.notFound('Bot');
    const bot = rows[0];
    const webhook = bot.delivery_mode === 'webhook';
    return {
      url: bot.webhook_url ?? '',
      has_custom_certificate: false,
      pending_update_count: await this.pendingCount(botId, webhook),
      last_error_date: bot.webhook_last_error_at ? Math.floor(bot.webhook_last_error_at.getTime() / 1000) : null,
      last_error_message: bot.webhook_last_error_message,
      max_connections: webhook ? bot.webhook_max_connections : null,
      allowed_updates: bot.allowed_updates ?? [],
      allowed_ips: bot.webhook_allowed_ips ?? [],
      platform_egress_ips: this.config.platformEgressIps,
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
    const rows: Array<{ review_status: string }> = await this.dataSource.query(
      `SELECT review_status FROM bots WHERE id = $1 AND owner_id = $2`,
      [botId, ownerId],
    );
    if (rows.length === 0) throw ApiError.notFound('Bot');
    if (rows[0].review_status !== 'approved') {
      throw ApiError.conflict('CONFLICT', 'The bot is not approved yet');
    }
  }

  private async pendingCount(botId: string, webhook: boolean): Promise<number> {
    const rows: Array<{ count: string }> = webhook
      ? await this.dataSource.query(
          `SELECT count(*) FROM webhook_deliveries WHERE bot_id = $1 AND status IN ('pending', 'retrying')`,
          [botId],
        )
      : await this.dataSource.query(
          `SELECT count(*) FROM updates
            WHERE bot_id = $1 AND NOT acknowledged AND created_at > now() - make_interval(hours => $2)`,
          [botId, this.config.UPDATES_RETENTION_HOURS],
        );
    return Number(rows[0].count);
  }

  private async dropPending(manager: EntityManager, botId: string): Promise<void> {
    await manager.query(`UPDATE updates SET acknowledged = true WHERE bot_id = $1 AND NOT acknowledged`, [botId]);
    await manager.query(`DELETE FROM webhook_deliveries WHERE bot_id = $1 AND status IN ('pending', 'retrying')`, [
      botId,
    ]);
  }
}
