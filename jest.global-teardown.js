// Runs once after the last test file, whether tests passed or not: stops the embedded PostgreSQL that
// jest.global-setup.js started (if it did) and removes its temporary folder.
const { rmSync } = require('node:fs');

module.exports = async function globalTeardown() {
  const started = globalThis.testPostgres;
  if (!started) return;
  globalThis.testPostgres = undefined;
  await started.postgres.stop();
  rmSync(started.dir, { recursive: true, force: true });
};
