export * from './coordination-settings';
export * from './coordination.module';
export * from './queue-connection';
export * from './queue-schema';
export * from './resolve-backend';
export * from './periodic-work.module';
