/*
 * What the sealed-transport specs use of @app/testing, from the files that define it. The mutation run
 * (stryker/sealed-transport.config.mjs) maps @app/testing here: its barrel loads TypeScript, BullMQ and
 * Chromium's helpers, seconds per mutant that these specs never use.
 */
export * from '../../../libs/testing/src/backends';
export * from '../../../libs/testing/src/test-database';
export * from '../../../libs/testing/src/shared-state';
