export * from './test-app';
export * from './test-database';
export * from './migration-round-trip';
export * from './http-routes';
export * from './https-receiver';
export * from './service-test-app';
export * from './openapi-expectations';
export * from './service-process';
