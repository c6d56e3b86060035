import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiError } from '@app/envelope';
import {
  nativeAllowedUpdates,
  NativeUpdate,
  toTelegramUpdate,
  toTelegramUser,
  TelegramObject,
} from '@app/telegram-shapes';
import { ProfileService } from '../../profile/profile.service';
import { GetUpdatesDto } from '../../get-updates/dto/get-updates.dto';
import { PollingService } from '../../get-updates/polling.service';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { DropPendingDto, SetWebhookDto } from '../../webhooks/dto/webhook.dto';
import { nativeDto } from '../native-dto';
import type { TelegramArgs } from '../telegram-args';
import type { TelegramCall, TelegramMethod, TelegramMethodGroup } from '../telegram-call';
import { TelegramError, TELEGRAM_TEXTS } from '../telegram-errors';
import { TelegramIdsService } from '../telegram-ids.service';

const MAX_TIMEOUT_SECONDS = 50;

function clamp(value: number | undefined, min: number, max: number): number | undefined {
  return value === undefined ? undefined : Math.min(Math.max(value, min), max);
}

/** allowed_updates as Telegram sends it: a JSON array, in a form as its serialised string. */
export function allowedUpdatesOf(args: TelegramArgs): string[] | undefined {
  const list = args.json('allowed_updates', 'allowed_updates JSON array');
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.some((name) => typeof name !== 'string')) {
    throw TelegramError.badRequest('allowed_updates must be an array of strings');
  }
  return nativeAllowedUpdates(list as string[]);
}

/** The native getUpdates conflicts in Telegram's words. */
function pollingConflict(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.code !== 'CONFLICT') return error;
  return new TelegramError(
    409,
    /webhook/i.test(error.message) ? TELEGRAM_TEXTS.webhookActive : TELEGRAM_TEXTS.pollConflict,
  );
}

/** getMe, getUpdates and the webhook reads and removal that polling frameworks call at start. */
@Injectable()
export class UpdatesMethods implements TelegramMethodGroup {
  constructor(
    private readonly profile: ProfileService,
    private readonly polling: PollingService,
    private readonly webhooks: WebhooksService,
    private readonly ids: TelegramIdsService,
  ) {}

  methods(): Record<string, TelegramMethod> {
    return {
      getMe: (call) => this.getMe(call),
      getUpdates: (call) => this.getUpdates(call),
      setWebhook: (call) => this.setWebhook(call),
      deleteWebhook: (call) => this.deleteWebhook(call),
      getWebhookInfo: (call) => this.getWebhookInfo(call),
    };
  }

  private getMe({ bot }: TelegramCall): Promise<TelegramObject> {
    const me = this.profile.me(bot);
    return this.ids.present((ids) => ({
      ...toTelegramUser({ id: me.id ?? bot.id, is_bot: true, username: me.username, first_name: me.name }, ids),
      can_join_groups: true,
      // Group privacy is always on: in groups a bot sees commands, mentions of it and replies to it.
      can_read_all_group_messages: false,
      supports_inline_queries: me.supports_inline_queries,
      can_connect_to_business: false,
      has_main_web_app: false,
    }));
  }

  /**
   * Native getUpdates with update_seq as update_id, so Telegram's offset rules hold as they are. A
   * negative offset keeps only the last |offset| pending Updates. Updates without a Telegram
   * counterpart are not returned; a batch of only those is confirmed and the wait goes on.
   */
  private async getUpdates({ bot, tokenHash, args }: TelegramCall): Promise<TelegramObject[]> {
    let offset = args.int('offset');
    const timeout = clamp(args.int('timeout'), 0, MAX_TIMEOUT_SECONDS) ?? 0;
    const dto = await nativeDto(GetUpdatesDto, {
      limit: clamp(args.int('limit'), 1, 100),
      allowed_updates: allowedUpdatesOf(args),
    });
    try {
      if (offset !== undefined && offset < 0) {
        await this.polling.forgetAllButLast(bot, -offset);
        offset = undefined;
      }
      const deadline = Date.now() + timeout * 1000;
      for (;;) {
        const remaining = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
        const native = (await this.polling.getUpdates(bot, tokenHash, {
          ...dto,
          offset: offset !== undefined && offset > 0 ? offset : undefined,
          timeout: remaining,
        })) as unknown as NativeUpdate[];
        const mapped = await this.ids.present((ids) =>
          native.map((update) => toTelegramUpdate(update, ids)).filter((update) => update !== null),
        );
        if (mapped.length > 0 || native.length === 0) return mapped;
        offset = native[native.length - 1].update_seq + 1;
      }
    } catch (error) {
      throw pollingConflict(error);
    }
  }

  /**
   * A webhook set here receives Telegram's Updates with X-Telegram-Bot-Api-Secret-Token (besides the
   * service's signatures). Without secret_token one is generated, as the signatures need a key; an
   * empty url removes the webhook, as in Telegram.
   */
  private async setWebhook(call: TelegramCall): Promise<true> {
    const { bot, args } = call;
    const url = args.string('url') ?? '';
    if (url === '') return this.deleteWebhook(call);
    if (args.has('certificate'))
      throw TelegramError.badRequest('custom certificates are not supported; use a publicly trusted HTTPS certificate');
    const dto = await nativeDto(SetWebhookDto, {
      url,
      secret_token: args.string('secret_token') || randomBytes(32).toString('base64url'),
      allowed_updates: allowedUpdatesOf(args),
      max_connections: args.int('max_connections'),
      drop_pending_updates: args.bool('drop_pending_updates'),
    });
    await this.webhooks.setWebhook(bot.id, dto, 'telegram');
    return true;
  }

  private async deleteWebhook({ bot, args }: TelegramCall): Promise<true> {
    const dto = await nativeDto(DropPendingDto, { drop_pending_updates: args.bool('drop_pending_updates') });
    await this.webhooks.deleteWebhook(bot.id, dto);
    return true;
  }

  private async getWebhookInfo({ bot }: TelegramCall): Promise<TelegramObject> {
    const info = await this.webhooks.info(bot.id);
    return Object.fromEntries(
      Object.entries({
        url: info.url,
        has_custom_certificate: false,
        pending_update_count: info.pending_update_count,
        last_error_date: info.last_error_date ?? undefined,
        last_error_message: info.last_error_message ?? undefined,
        max_connections: info.max_connections ?? undefined,
        allowed_updates: info.allowed_updates.length > 0 ? info.allowed_updates : undefined,
      }).filter(([, value]) => value !== undefined),
    );
  }
}
