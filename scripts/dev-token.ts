/**
 * Prints a development account JWT signed with ACCOUNT_JWT_SECRET, or with this checkout's generated
 * development secret, the one `npm start` gives the apps (scripts/development-environment.js).
 *   npm run token -- --sub u1 --name Alice [--admin] [--expires 12h]
 */
import { parseArgs } from 'node:util';
import { PLATFORM_ADMIN_ROLE, signAccountJwt } from '@app/auth';
import { DEFAULT_SECRETS_FILE, developmentSecrets } from './development-environment';

export const DEFAULT_TOKEN_LIFETIME = '12h';

export const TOKEN_USAGE = `usage: npm run token -- --sub <user id> [--name <display name>] [--admin] [--expires <lifetime>]

Prints an account JWT for the development services (HS256 with ACCOUNT_JWT_SECRET, or, when it is
unset, with this checkout's development secret in .data/development-secrets.env, which npm start gives
the apps; ACCOUNT_JWT_ISSUER and ACCOUNT_JWT_AUDIENCE are added when set).

  --sub <user id>        the account's user id (claim sub); required
  --name <name>          display name (claim name); defaults to the user id
  --admin                adds the platform_admin role (platform staff: template and bot review)
  --expires <lifetime>   lifetime as a number and unit, e.g. 30m, 12h, 7d (default ${DEFAULT_TOKEN_LIFETIME})
  --help                 prints this text`;

/** A number followed by a unit jose understands; anything else would fail deep inside the signer. */
const LIFETIME =
  /^\d+\s?(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|week|weeks|y|yr|yrs|year|years)$/i;

export class UsageError extends Error {}

export type TokenCommand = { help: true } | { help: false; sub: string; name: string; admin: boolean; expires: string };

/** Reads the command line; a mistake is a UsageError whose message says what is wrong. */
export function parseTokenArgs(args: string[]): TokenCommand {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        sub: { type: 'string' },
        name: { type: 'string' },
        admin: { type: 'boolean', default: false },
        expires: { type: 'string', default: DEFAULT_TOKEN_LIFETIME },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return { help: true };
  if (!values.sub) throw new UsageError('--sub is required');
  if (!LIFETIME.test(values.expires)) throw new UsageError(`--expires "${values.expires}" is not a lifetime like 12h`);
  return {
    help: false,
    sub: values.sub,
    name: values.name ?? values.sub,
    admin: values.admin,
    expires: values.expires,
  };
}

export function signDevToken(
  command: Extract<TokenCommand, { help: false }>,
  env: NodeJS.ProcessEnv,
  secretsFile = DEFAULT_SECRETS_FILE,
): Promise<string> {
  return signAccountJwt(env.ACCOUNT_JWT_SECRET || developmentSecrets(secretsFile).ACCOUNT_JWT_SECRET, {
    sub: command.sub,
    name: command.name,
    roles: command.admin ? [PLATFORM_ADMIN_ROLE] : [],
    expiresIn: command.expires,
    issuer: env.ACCOUNT_JWT_ISSUER || undefined,
    audience: env.ACCOUNT_JWT_AUDIENCE || undefined,
  });
}

async function main(): Promise<void> {
  let command: TokenCommand;
  try {
    command = parseTokenArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${TOKEN_USAGE}\n`);
    process.exit(2);
  }
  if (command.help) {
    process.stdout.write(`${TOKEN_USAGE}\n`);
    return;
  }
  process.stdout.write(`${await signDevToken(command, process.env)}\n`);
}

if (require.main === module) void main();
