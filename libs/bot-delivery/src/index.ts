export * from './queue';
export * from './producer';
export * from './signature';
export * from './webhook-secret';
export * from './address-policy';
export * from './entities/webhook-delivery.entity';
export * from './entities/webhook-delivery-attempt.entity';
export * from './host-resolver';
export * from './bot-database/bot-availability';
export * from './bot-database/bot-delivery-settings.store';
export * from './bot-database/delivery.store';
export * from './bot-database/due-delivery';
export * from './bot-database/updates.store';
export * from './bot-database/staff-delivery.store';
export {
  DELIVERY_ERROR_CLASSES,
  DeliveryErrorClass,
  errorClassSql,
  redrivableDeadLettersSql,
  autoRedrivableDeadLettersSql,
} from './bot-database/staff-delivery-statements';
export * from './bot-database/telegram-aliases.store';
