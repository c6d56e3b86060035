import { Injectable } from '@nestjs/common';
import { Database, type SqlTarget } from '@app/platform';
import type { WebhookDeliveryAttempt } from './entities/webhook-delivery-attempt.entity';
import type { DeliveryStatus, WebhookDelivery } from './entities/webhook-delivery.entity';
import type { DeliverJobData } from './queue';
import {
  BotDeliverySettingsStore,
  WebhookSecretsRow,
  WebhookSettings,
  WebhookSettingsRow,
} from './bot-database/bot-delivery-settings.store';
import { DeliveryDaysStore, LogDaysOutcome } from './bot-database/delivery-days.store';
import { DeliveryStore, OpenedDelivery } from './bot-database/delivery.store';
import type { AttemptRecord, DueDelivery, SkipReason } from './bot-database/due-delivery';
import {
  BotDeliveryCounts,
  RedriveFilter,
  StaffDeliveryCursor,
  StaffDeliveryDetailRow,
  StaffDeliveryFilter,
  StaffDeliveryRow,
  StaffDeliveryStore,
} from './bot-database/staff-delivery.store';
import { TelegramAliasesStore, TelegramAliasKind } from './bot-database/telegram-aliases.store';
import { UpdateOutbox, WrittenUpdateRow } from './bot-database/update-outbox';
import { PendingUpdateRow, UpdateColumns, UpdatesStore } from './bot-database/updates.store';
import type { DeliveryErrorClass } from './bot-database/delivery-error-class';

/**
 * The delivery domain as bot-api and bot-dispatcher see it: the one service they call for the Update
 * outbox, webhook deliveries and their attempts, the staff views and redrives, the delivery settings and
 * the Telegram aliases. The stores behind it (one per table, in bot-database/) are the library's own, so
 * a change to a table or a statement stays inside the library. Methods taking a target (`on`) run in the
 * caller's transaction or on the pool it names; the others run on their own.
 */
@Injectable()
export class DeliveryDomain {
  private readonly updates: UpdatesStore;
  private readonly outbox = new UpdateOutbox();
  private readonly deliveries: DeliveryStore;
  private readonly staff: StaffDeliveryStore;
  private readonly settings: BotDeliverySettingsStore;
  private readonly telegramAliases: TelegramAliasesStore;
  private readonly days: DeliveryDaysStore;

  constructor(database: Database) {
    this.updates = new UpdatesStore(database);
    this.deliveries = new DeliveryStore(database);
    this.staff = new StaffDeliveryStore(database);
    this.settings = new BotDeliverySettingsStore(database);
    this.telegramAliases = new TelegramAliasesStore(database);
    this.days = new DeliveryDaysStore(database);
  }

  // The outbox: Updates written with their event, read and acknowledged by getUpdates.

  /** Writes the Updates and, for bots in webhook mode, their deliveries: one statement. */
  writeOutbox(on: SqlTarget, columns: UpdateColumns): Promise<WrittenUpdateRow[]> {
    return this.outbox.write(on, columns);
  }

  /** Unconfirmed Updates of the bot from `offset` on, within the retention, oldest first. */
  pendingUpdates<Payload>(
    botId: string,
    offset: number,
    retentionHours: number,
    limit: number,
  ): Promise<Array<PendingUpdateRow<Payload>>> {
    return this.updates.pending<Payload>(botId, offset, retentionHours, limit);
  }

  /** getUpdates' offset: every Update of the bot below it is confirmed. */
  acknowledgeBelow(botId: string, offset: number): Promise<void> {
    return this.updates.acknowledgeBelow(botId, offset);
  }

  /** Telegram's negative offset: only the last `keep` pending Updates stay. */
  acknowledgeAllButLast(botId: string, keep: number): Promise<void> {
    return this.updates.acknowledgeAllButLast(botId, keep);
  }

  /** drop_pending_updates: every Update the bot has not confirmed is dropped. */
  acknowledgeAll(on: SqlTarget, botId: string): Promise<void> {
    return this.updates.acknowledgeAll(on, botId);
  }

  // A bot's own deliveries (the developer's routes and the webhook switch).

  /** A bot just switched to webhook mode: a delivery for each Update it has not confirmed yet. */
  deliverBacklog(on: SqlTarget, botId: string, retentionHours: number): Promise<OpenedDelivery[]> {
    return this.deliveries.deliverBacklog(on, botId, retentionHours);
  }

  /** Open deliveries are deleted; their Updates stay unconfirmed for getUpdates. */
  withdrawOpen(on: SqlTarget, botId: string): Promise<void> {
    return this.deliveries.withdrawOpen(on, botId);
  }

  /** getWebhookInfo's pending_update_count. */
  pendingCount(botId: string, webhook: boolean, retentionHours: number): Promise<number> {
    return this.deliveries.pendingCount(botId, webhook, retentionHours);
  }

  backlog(botId: string): Promise<{ pending: number; retrying: number; dead_letter: number }> {
    return this.deliveries.backlog(botId);
  }

  /** A page of the owner's bot's delivery log, newest first; null when the bot is not theirs. */
  deliveryPage(
    ownerId: string,
    botId: string,
    status: DeliveryStatus | null,
    limit: number,
    offset: number,
  ): Promise<WebhookDelivery[] | null> {
    return this.deliveries.page(ownerId, botId, status, limit, offset);
  }

  deliveryCount(botId: string, status: DeliveryStatus | null): Promise<number> {
    return this.deliveries.count(botId, status);
  }

  deliveryOfUpdate(on: SqlTarget, botId: string, updateId: string): Promise<WebhookDelivery | null> {
    return this.deliveries.findByUpdateId(on, botId, updateId);
  }

  deliveryById(on: SqlTarget, id: string): Promise<WebhookDelivery> {
    return this.deliveries.findById(on, id);
  }

  attemptsOf(deliveryId: string): Promise<WebhookDeliveryAttempt[]> {
    return this.deliveries.attempts(deliveryId);
  }

  /** The developer's redelivery of one finished delivery; nothing when it is still open. */
  redeliver(on: SqlTarget, deliveryId: string): Promise<OpenedDelivery[]> {
    return this.deliveries.restartFinished(on, deliveryId);
  }

  /** The developer's bulk redelivery: the bot's dead letters within [since, until). */
  redeliverDeadLetters(
    on: SqlTarget,
    botId: string,
    since: string | null,
    until: string | null,
  ): Promise<OpenedDelivery[]> {
    return this.deliveries.restartDeadLetters(on, botId, since, until);
  }

  // The dispatcher: load due deliveries, record attempts, sweep and purge.

  openBacklogByBot(limit: number): Promise<Array<{ bot_id: string; open: number }>> {
    return this.deliveries.openBacklogByBot(limit);
  }

  /** What each job finds, in order: its due delivery, or why it has nothing to do. One statement. */
  loadDue(jobs: readonly DeliverJobData[]): Promise<Array<DueDelivery | SkipReason>> {
    return this.deliveries.loadMany(jobs);
  }

  /**
   * Records attempts, confirms the Updates delivered and updates each bot's outcome, in one statement;
   * per record, whether it was recorded (false: superseded meanwhile).
   */
  recordAttempts(records: readonly AttemptRecord[], pauseAfterGone?: number): Promise<boolean[]> {
    return this.deliveries.recordMany(records, pauseAfterGone);
  }

  overdue(graceMs: number, limit: number): Promise<Array<OpenedDelivery & { attempts: number }>> {
    return this.deliveries.overdue(graceMs, limit);
  }

  adoptOrphans(graceMs: number, limit: number): Promise<OpenedDelivery[]> {
    return this.deliveries.adoptOrphans(graceMs, limit);
  }

  // The days of the delivery tables (periodic work): created ahead, dropped past their retention.

  /** The days up to a week ahead that are missing, for the three tables; answers how many were made. */
  createDaysAhead(): Promise<number> {
    return this.days.createDaysAhead();
  }

  /** How many whole days after today every delivery table can take rows for (the least of the three). */
  daysAheadCovered(): Promise<number> {
    return this.days.daysAheadCovered();
  }

  /** The days of Updates whose every Update is past the retention, dropped whole; answers their names. */
  dropExpiredUpdateDays(retentionHours: number): Promise<string[]> {
    return this.days.dropExpiredUpdateDays(retentionHours);
  }

  /** The days of the delivery log past the retention with no delivery changed within it, dropped whole. */
  dropExpiredLogDays(retentionDays: number): Promise<LogDaysOutcome> {
    return this.days.dropExpiredLogDays(retentionDays);
  }

  // Platform staff: every bot's deliveries, and redrives (staff and automatic).

  staffPage(
    filter: StaffDeliveryFilter,
    after: StaffDeliveryCursor | null,
    limit: number,
  ): Promise<StaffDeliveryRow[]> {
    return this.staff.page(filter, after, limit);
  }

  staffDetail(updateId: string): Promise<StaffDeliveryDetailRow | undefined> {
    return this.staff.detail(updateId);
  }

  statusCounts(since: string | null, until: string | null): Promise<Array<{ status: DeliveryStatus; count: number }>> {
    return this.staff.statusCounts(since, until);
  }

  deadLettersByClass(
    since: string | null,
    until: string | null,
  ): Promise<Array<{ error_class: DeliveryErrorClass | null; count: number }>> {
    return this.staff.deadLettersByClass(since, until);
  }

  topBots(since: string | null, until: string | null, limit: number): Promise<BotDeliveryCounts[]> {
    return this.staff.topBots(since, until, limit);
  }

  /** The dry run of a redrive: the dead letters it would take, per bot. */
  countRedrivable(filter: RedriveFilter): Promise<Array<{ bot_id: string; count: number }>> {
    return this.staff.countRedrivable(filter);
  }

  /** A new series started by `trigger` for each listed delivery still in one of `statuses`. */
  redrive(
    on: SqlTarget,
    deliveryIds: string[],
    statuses: DeliveryStatus[],
    trigger: 'staff' | 'auto',
  ): Promise<OpenedDelivery[]> {
    return this.staff.restart(on, deliveryIds, statuses, trigger);
  }

  // A bot's delivery settings.

  /** In the transaction that creates the bot. */
  createSettings(on: SqlTarget, botId: string): Promise<void> {
    return this.settings.create(on, botId);
  }

  setWebhook(on: SqlTarget, botId: string, settings: WebhookSettings): Promise<void> {
    return this.settings.setWebhook(on, botId, settings);
  }

  /** Locks the bot's settings until the transaction ends; undefined when there is no such bot. */
  webhookSecretsForUpdate(on: SqlTarget, botId: string): Promise<WebhookSecretsRow | undefined> {
    return this.settings.webhookSecretsForUpdate(on, botId);
  }

  clearWebhook(on: SqlTarget, botId: string, maxConnections: number): Promise<void> {
    return this.settings.clearWebhook(on, botId, maxConnections);
  }

  webhookSettings(botId: string): Promise<WebhookSettingsRow | undefined> {
    return this.settings.webhookSettings(botId);
  }

  /** Undefined when the bot is not the owner's. `lock` keeps a concurrent mode switch out until commit. */
  deliveryModeOfOwned(on: SqlTarget, ownerId: string, botId: string, lock = false): Promise<string | undefined> {
    return this.settings.deliveryModeOfOwned(on, ownerId, botId, lock);
  }

  setAllowedUpdates(botId: string, allowed: string[] | null): Promise<void> {
    return this.settings.setAllowedUpdates(botId, allowed);
  }

  setAutoRedeliver(on: SqlTarget, botId: string, enabled: boolean): Promise<void> {
    return this.settings.setAutoRedeliver(on, botId, enabled);
  }

  anyRecovered(): Promise<boolean> {
    return this.settings.anyRecovered();
  }

  /** Bots whose receiver recovered with dead letters waiting, locked until the caller commits. */
  recoveredBots(on: SqlTarget, limit: number): Promise<string[]> {
    return this.settings.recoveredBots(on, limit);
  }

  clearRecovered(on: SqlTarget, botIds: string[]): Promise<void> {
    return this.settings.clearRecovered(on, botIds);
  }

  // The integer aliases of the Telegram-compatible face.

  /** The aliases of the wanted chats and users, given on first use. */
  telegramAliasesOf(wanted: {
    chat: Iterable<string>;
    user: Iterable<string>;
  }): Promise<Record<TelegramAliasKind, Map<string, number>>> {
    return this.telegramAliases.aliases(wanted);
  }

  nativeOfAlias(kind: TelegramAliasKind, alias: number): Promise<string | null> {
    return this.telegramAliases.nativeOf(kind, alias);
  }
}
