/*
 * The database and backend helpers of @app/testing alone, without the barrel's other helpers (which
 * load TypeScript, BullMQ and Chromium's helpers). A mutation run whose specs need only these maps
 * @app/testing here (stryker/sealed-transport.config.mjs), saving seconds per mutant.
 */
export * from './backends';
export * from './test-database';
export * from './shared-state';
