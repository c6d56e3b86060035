import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { AccountJwtVerifier, DEV_ACCOUNT_JWT_SECRET } from '@app/auth';
import { parseTokenArgs, signDevToken, TOKEN_USAGE, UsageError } from './dev-token';

const ROOT = resolve(__dirname, '..');

function tokenRequest(args: string[]) {
  const command = parseTokenArgs(args);
  if (command.help) throw new Error(`${args.join(' ')} asked for the usage`);
  return command;
}

describe('npm run token', () => {
  it('prints the usage with --help and exits 0, without a stack trace', async () => {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['-r', 'ts-node/register/transpile-only', '-r', 'tsconfig-paths/register', 'scripts/dev-token.ts', '--help'],
      { cwd: ROOT },
    );
    expect(stdout.trim()).toBe(TOKEN_USAGE);
    expect(stderr).toBe('');
  });

  it('answers an unknown option, a missing --sub or a bad lifetime with a usage error naming the problem', () => {
    expect(() => parseTokenArgs(['--sub', 'u1', '--colour', 'red'])).toThrow(UsageError);
    expect(() => parseTokenArgs(['--sub', 'u1', '--colour', 'red'])).toThrow(/--colour/);
    expect(() => parseTokenArgs(['--name', 'Alice'])).toThrow('--sub is required');
    expect(() => parseTokenArgs(['--sub', 'u1', '--expires', 'soon'])).toThrow(/--expires "soon"/);
    expect(parseTokenArgs(['-h'])).toEqual({ help: true });
  });

  it('signs a token the services accept, valid for 12 hours unless --expires says otherwise', async () => {
    const token = await signDevToken(tokenRequest(['--sub', 'u1', '--name', 'Alice', '--admin']), {});
    const verifier = new AccountJwtVerifier({ secret: DEV_ACCOUNT_JWT_SECRET });
    await expect(verifier.verify(token)).resolves.toMatchObject({ id: 'u1', name: 'Alice', isPlatformAdmin: true });
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(12 * 3600);

    const short = decodeJwt(await signDevToken(tokenRequest(['--sub', 'u2', '--expires', '30m']), {}));
    expect(short.exp! - short.iat!).toBe(30 * 60);
    expect(short.name).toBe('u2');
  });
});
