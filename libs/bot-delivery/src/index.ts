/*
 * The public face of the delivery domain. Apps call DeliveryDomain for every statement on the delivery
 * tables; the stores behind it are not exported. The only SQL exported are named, typed fragment
 * builders for the statements that must stay one statement with a caller's own table (a message written
 * with its Updates, a redrive job taking its dead letters) and the bot-row expressions bot-api's
 * entities read.
 */
export * from './queue';
export * from './producer';
export * from './signature';
export * from './webhook-secret';
export * from './address-policy';
export * from './entities/update.entity';
export * from './entities/webhook-delivery.entity';
export * from './entities/webhook-delivery-attempt.entity';
export * from './host-resolver';
export * from './delivery-domain';
export { botAvailable, isBotAvailable } from './bot-database/bot-availability';
export type { BotAvailability } from './bot-database/bot-availability';
export type {
  WebhookSecretsRow,
  WebhookSettings,
  WebhookSettingsRow,
} from './bot-database/bot-delivery-settings.store';
export { DEFAULT_GONE_PAUSE_AFTER } from './bot-database/delivery.store';
export type { OpenedDelivery } from './bot-database/delivery.store';
export { DAYS_AHEAD } from './bot-database/delivery-days.store';
export type { LogDaysOutcome } from './bot-database/delivery-days.store';
export { ATTEMPT_OUTCOMES, SKIP_REASONS } from './bot-database/due-delivery';
export type {
  AttemptOutcome,
  AttemptRecord,
  AttemptResult,
  DueDelivery,
  SkipReason,
  WebhookFormat,
} from './bot-database/due-delivery';
export type { PendingUpdateRow, UpdateColumns } from './bot-database/updates.store';
export { NO_UPDATES, withOutboxWritten, WRITTEN_UPDATE_COLUMNS } from './bot-database/update-outbox';
export type { WrittenUpdateRow } from './bot-database/update-outbox';
export type {
  BotDeliveryCounts,
  StaffDeliveryCursor,
  StaffDeliveryDetailRow,
  StaffDeliveryFilter,
  StaffDeliveryRow,
} from './bot-database/staff-delivery.store';
export { DELIVERY_ERROR_CLASSES } from './bot-database/delivery-error-class';
export type { DeliveryErrorClass } from './bot-database/delivery-error-class';
export { autoRedrivableDeadLetters, redrivableDeadLetters } from './bot-database/webhook-deliveries.store';
export type { RedriveFilter } from './bot-database/webhook-deliveries.store';
export type { TelegramAliasKind } from './bot-database/telegram-aliases.store';
