export * from './rate-limit-headers';
export * from './rate-limit-policy';
export * from './windowed-rate-limiters';
