export * from './sampler';
export * from './tracing';
export * from './tracing-config';
