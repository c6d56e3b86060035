// Each run records its own contract coverage (libs/testing/src/contract.ts, scripts/contract-coverage.ts).
const { rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

module.exports = function globalSetup() {
  process.env.CONTRACT_COVERAGE_DIR ??= join(tmpdir(), 'open-platform-contract-coverage');
  rmSync(process.env.CONTRACT_COVERAGE_DIR, { recursive: true, force: true });
};
