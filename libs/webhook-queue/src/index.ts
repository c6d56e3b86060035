export * from './queue';
export * from './signature';
export * from './secret-cipher';
export * from './address-policy';
export * from './entities/webhook-delivery.entity';
export * from './entities/webhook-delivery-attempt.entity';
