export * from './formatting';
export * from './ids';
export * from './native';
export * from './shapes';
