/**
 * Prints a development account JWT signed with ACCOUNT_JWT_SECRET (or the dev default).
 *   npm run token -- --sub u1 --name Alice [--admin] [--expires 12h]
 */
import { parseArgs } from 'node:util';
import { DEV_ACCOUNT_JWT_SECRET, PLATFORM_ADMIN_ROLE, signAccountJwt } from '@app/auth';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      name: { type: 'string' },
      admin: { type: 'boolean', default: false },
      expires: { type: 'string', default: '12h' },
    },
  });
  if (!values.sub) {
    console.error('usage: npm run token -- --sub <user id> [--name <display name>] [--admin] [--expires 12h]');
    process.exit(2);
  }
  const token = await signAccountJwt(process.env.ACCOUNT_JWT_SECRET ?? DEV_ACCOUNT_JWT_SECRET, {
    sub: values.sub,
    name: values.name ?? values.sub,
    roles: values.admin ? [PLATFORM_ADMIN_ROLE] : [],
    expiresIn: values.expires,
    issuer: process.env.ACCOUNT_JWT_ISSUER,
    audience: process.env.ACCOUNT_JWT_AUDIENCE,
  });
  process.stdout.write(`${token}\n`);
}

void main();
