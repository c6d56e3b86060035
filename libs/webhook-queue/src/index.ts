export * from './queue';
export * from './signature';
export * from './webhook-secret';
export * from './address-policy';
export * from './entities/webhook-delivery.entity';
export * from './entities/webhook-delivery-attempt.entity';
