export * from './account-jwt';
export * from './auth.config';
export * from './auth.module';
export * from './guards';
export * from './internal-service-token';
export * from './principal';
export * from './secret-cipher';
export * from './secret-tokens';
