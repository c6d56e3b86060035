export * from './sampler';
export * from './tracing';
export * from './tracing-config';
export * from './warm-up-mark';
