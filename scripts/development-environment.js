// The development settings of this checkout that must not be the same on every machine: the secrets that
// grant access to the apps (account JWTs, the internal routes, signed file URLs), generated once per
// checkout and kept in `.data/development-secrets.env` (0600), and the embedded PostgreSQL's password
// (scripts/local-postgres.js). `npm start` gives them to the apps, `npm run token` signs with the same
// secret, and `node scripts/development-environment.js <command…>` runs a tool (the migration scripts)
// with them. A variable that is set already always wins; production gets none of them.
'use strict';

const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const { dirname, join, resolve } = require('node:path');
const { parseEnv } = require('node:util');
const { databaseAddress, isLoopback, keptPassword } = require('./local-postgres.js');

const DEFAULT_SECRETS_FILE = join(resolve(__dirname, '..'), '.data', 'development-secrets.env');

/**
 * Each generated secret and how it is made. The keys that only encrypt stored data (CREDENTIAL_KEY,
 * BOT_TOKEN_ENCRYPTION_KEY, WEBHOOK_SECRET_KEY) keep their development defaults: they open nothing
 * over the network, and changing them would make an existing `.data` cluster's rows unreadable.
 */
const GENERATED = {
  ACCOUNT_JWT_SECRET: () => randomBytes(32).toString('base64url'),
  INTERNAL_API_TOKEN: () => randomBytes(32).toString('base64url'),
  FILE_URL_SIGNING_KEY: () => randomBytes(32).toString('hex'),
};

const HEADER =
  '# Development secrets of this checkout, generated once by npm start or npm run token\n' +
  '# (scripts/development-environment.js). Remove the file to get new ones; never used in production.\n';

/** The checkout's development secrets: read from `file`, with any that are missing generated and written (0600). */
function developmentSecrets(file = DEFAULT_SECRETS_FILE) {
  let kept = {};
  try {
    kept = parseEnv(fs.readFileSync(file, 'utf8'));
    fs.chmodSync(file, 0o600);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  const secrets = {};
  for (const [name, generate] of Object.entries(GENERATED)) secrets[name] = kept[name] || generate();
  if (Object.keys(GENERATED).some((name) => !kept[name])) {
    fs.mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}`;
    const lines = Object.entries(secrets).map(([name, value]) => `${name}=${value}\n`);
    fs.writeFileSync(partial, HEADER + lines.join(''), { mode: 0o600 });
    fs.renameSync(partial, file);
  }
  return secrets;
}

/**
 * What a development command adds to `env`: each generated secret that `env` does not set, and the
 * embedded PostgreSQL's kept password when DB_PASSWORD is unset and DB_HOST is loopback. Empty in production.
 */
function developmentEnvironment(env = process.env, secretsFile = DEFAULT_SECRETS_FILE) {
  if ((env.NODE_ENV || 'development') === 'production') return {};
  const added = {};
  for (const [name, value] of Object.entries(developmentSecrets(secretsFile))) {
    if (!env[name]) added[name] = value;
  }
  const password = !env.DB_PASSWORD && isLoopback(databaseAddress(env).host) ? keptPassword(env) : undefined;
  if (password) added.DB_PASSWORD = password;
  return added;
}

if (require.main === module) {
  const [command, ...args] = process.argv.slice(2);
  if (!command) {
    process.stderr.write('usage: node scripts/development-environment.js <command> [arguments…]\n');
    process.exit(2);
  }
  const child = spawn(command, args, {
    stdio: 'inherit',
    env: { ...process.env, ...developmentEnvironment() },
    shell: process.platform === 'win32',
  });
  child.once('exit', (code, signal) => (signal ? process.kill(process.pid, signal) : process.exit(code ?? 1)));
}

module.exports = { DEFAULT_SECRETS_FILE, developmentEnvironment, developmentSecrets };
