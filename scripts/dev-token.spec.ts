import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { AccountJwtVerifier, DEV_ACCOUNT_JWT_SECRET } from '@app/auth';
import { parseTokenArgs, signDevToken, TOKEN_USAGE, UsageError } from './dev-token';
import { developmentEnvironment, developmentSecrets } from './development-environment';

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

  describe('with the development secrets of a checkout', () => {
    let dir: string;
    let secretsFile: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'dev-token-'));
      secretsFile = join(dir, '.data', 'development-secrets.env');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    it('signs with the secret npm start gives the apps, valid for 12 hours unless --expires says otherwise', async () => {
      const token = await signDevToken(tokenRequest(['--sub', 'u1', '--name', 'Alice', '--admin']), {}, secretsFile);
      const { ACCOUNT_JWT_SECRET } = developmentEnvironment({}, secretsFile);
      const verifier = new AccountJwtVerifier({ secret: ACCOUNT_JWT_SECRET });
      await expect(verifier.verify(token)).resolves.toMatchObject({ id: 'u1', name: 'Alice', isPlatformAdmin: true });
      const claims = decodeJwt(token);
      expect(claims.exp! - claims.iat!).toBe(12 * 3600);

      const short = decodeJwt(await signDevToken(tokenRequest(['--sub', 'u2', '--expires', '30m']), {}, secretsFile));
      expect(short.exp! - short.iat!).toBe(30 * 60);
      expect(short.name).toBe('u2');

      const mine = 'a-secret-of-my-own-choosing';
      const own = await signDevToken(tokenRequest(['--sub', 'u3']), { ACCOUNT_JWT_SECRET: mine }, secretsFile);
      await expect(new AccountJwtVerifier({ secret: mine }).verify(own)).resolves.toMatchObject({ id: 'u3' });
    });

    it('never signs with the public development default (defect: a forged admin JWT listed every bot)', async () => {
      const token = await signDevToken(tokenRequest(['--sub', 'u1', '--admin']), {}, secretsFile);
      const withPublicDefault = new AccountJwtVerifier({ secret: DEV_ACCOUNT_JWT_SECRET });
      await expect(withPublicDefault.verify(token)).rejects.toThrow();
    });

    it('generates each secret once per checkout, random and private (0600), and never in production', () => {
      const first = developmentSecrets(secretsFile);
      expect(developmentSecrets(secretsFile)).toEqual(first);
      expect(statSync(secretsFile).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, '.data')).mode & 0o777).toBe(0o700);
      expect(Object.keys(first)).toEqual(['ACCOUNT_JWT_SECRET', 'INTERNAL_API_TOKEN', 'FILE_URL_SIGNING_KEY']);
      expect(first.FILE_URL_SIGNING_KEY).toMatch(/^[0-9a-f]{64}$/);
      expect(Buffer.from(first.ACCOUNT_JWT_SECRET, 'base64url')).toHaveLength(32);
      const other = developmentSecrets(join(dir, 'another-checkout.env'));
      expect(other.ACCOUNT_JWT_SECRET).not.toBe(first.ACCOUNT_JWT_SECRET);
      expect(readFileSync(secretsFile, 'utf8')).toContain(`INTERNAL_API_TOKEN=${first.INTERNAL_API_TOKEN}\n`);

      expect(developmentEnvironment({ INTERNAL_API_TOKEN: 'set-by-the-developer' }, secretsFile)).toEqual({
        ACCOUNT_JWT_SECRET: first.ACCOUNT_JWT_SECRET,
        FILE_URL_SIGNING_KEY: first.FILE_URL_SIGNING_KEY,
      });
      expect(developmentEnvironment({ NODE_ENV: 'production' }, secretsFile)).toEqual({});
    });
  });
});
