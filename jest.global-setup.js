// Runs once before every test file: records contract coverage per run (libs/testing/src/contract.ts,
// scripts/contract-coverage.ts) and whether Redis answers, so suites know which backends to cover.
const { rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { createConnection } = require('node:net');

/** Whether something answers Redis' PING on the test run's REDIS_URL within a second. */
function redisAnswers(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection({ host: hostname, port: Number(port || 6379) });
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

module.exports = async function globalSetup() {
  process.env.CONTRACT_COVERAGE_DIR ??= join(tmpdir(), 'open-platform-contract-coverage');
  rmSync(process.env.CONTRACT_COVERAGE_DIR, { recursive: true, force: true });
  if (process.env.TEST_REDIS_AVAILABLE === undefined) {
    const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    process.env.TEST_REDIS_AVAILABLE = (await redisAnswers(redisUrl)) ? '1' : '0';
    if (process.env.TEST_REDIS_AVAILABLE === '0') {
      console.log(`\nno Redis answers at ${redisUrl}: suites run in the PostgreSQL-only mode alone`);
    }
  }
};
