export * from './coordination-settings';
export * from './coordination.module';
export * from './queue-connection';
export * from './queue-schema';
export * from './resolve-backend';
export * from './channels/postgres-channel-bus';
export * from './channels/redis-channel-bus';
export * from './shared-state.module';
