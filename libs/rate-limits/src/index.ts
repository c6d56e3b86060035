export * from './rate-limit-headers';
export * from './rate-limit-policy';
export * from './stores';
export * from './windowed-rate-limiters';
