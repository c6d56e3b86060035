import { Controller, Get, HttpCode, INestApplication, Module, Post, UseGuards } from '@nestjs/common';
import {
  Account,
  AccountAuthConfig,
  AccountDirectory,
  AuthModule,
  CurrentAccount,
  AccountGuard,
  PlatformAdminGuard,
  PLATFORM_ADMIN_ROLE,
  signAccountJwt,
} from '../src';
import { EnvelopeModule, voucherEnvelope } from '@app/envelope';
import { HttpFoundationModule, loadConfig } from '@app/platform';
import { createTestApp } from '@app/testing';
import { SignJWT } from 'jose';
import request from 'supertest';

const SECRET = 'test-secret-for-guards-0123456789';

class RecordingDirectory implements AccountDirectory {
  static readonly seen: Account[] = [];
  async upsert(account: Account): Promise<void> {
    RecordingDirectory.seen.push(account);
  }
}

@Module({ providers: [RecordingDirectory], exports: [RecordingDirectory] })
class DirectoryModule {}

@Controller('me')
@UseGuards(AccountGuard)
class MeController {
  @Get()
  me(@CurrentAccount() account: Account) {
    return account;
  }

  @Get('admin')
  @UseGuards(PlatformAdminGuard)
  admin() {
    return { staff: true };
  }

  @Post('admin')
  @HttpCode(200)
  @UseGuards(PlatformAdminGuard)
  adminAction() {
    return { done: true };
  }
}

describe('account JWT guard', () => {
  let app: INestApplication;
  const config = loadConfig(AccountAuthConfig, { ACCOUNT_JWT_SECRET: SECRET, ACCOUNT_JWT_ISSUER: 'accounts' });
  const sign = (claims: Partial<Parameters<typeof signAccountJwt>[1]> = {}, secret = SECRET) =>
    signAccountJwt(secret, { sub: 'u1', name: 'Alice', issuer: 'accounts', ...claims });

  beforeAll(async () => {
    @Module({
      imports: [
        EnvelopeModule.forRoot(voucherEnvelope),
        HttpFoundationModule.forRoot({ bodyLimit: '1kb' }),
        AuthModule.forRoot({ config, directory: RecordingDirectory, imports: [DirectoryModule] }),
      ],
      controllers: [MeController],
    })
    class TestModule {}
    app = await createTestApp(TestModule);
  });
  afterAll(() => app.close());

  const get = (path: string, authorization?: string) => {
    const req = request(app.getHttpServer()).get(path);
    return authorization ? req.set('Authorization', authorization) : req;
  };

  it('accepts a valid JWT, exposes the account and records it in the directory', async () => {
    const res = await get('/me', `Bearer ${await sign()}`).expect(200);
    expect(res.body.data).toEqual({ id: 'u1', name: 'Alice', roles: [], isPlatformAdmin: false });
    expect(RecordingDirectory.seen.at(-1)).toMatchObject({ id: 'u1', name: 'Alice' });
  });

  it('answers 401 UNAUTHORIZED without an Authorization header', async () => {
    const res = await get('/me').expect(401);
    expect(res.body).toMatchObject({ success: false, code: 401, error: { code: 'UNAUTHORIZED' } });
  });

  it('answers 401 for a malformed token', async () => {
    await get('/me', 'Bearer not.a.jwt').expect(401);
    await get('/me', 'Bearer garbage').expect(401);
    await get('/me', 'Token abc').expect(401);
  });

  it('answers 401 for an expired token', async () => {
    const expired = await sign({ expiresIn: Math.floor(Date.now() / 1000) - 60 });
    const res = await get('/me', `Bearer ${expired}`).expect(401);
    expect(res.body.message).toContain('expired');
  });

  it('answers 401 for a token signed with another secret', async () => {
    await get('/me', `Bearer ${await sign({}, 'another-secret-0123456789abcdef')}`).expect(401);
  });

  it('answers 401 for a token from another issuer', async () => {
    await get('/me', `Bearer ${await sign({ issuer: 'elsewhere' })}`).expect(401);
  });

  it('answers 401 for an unsigned (alg none) token', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ sub: 'u1', iss: 'accounts' })).toString('base64url');
    await get('/me', `Bearer ${header}.${payload}.`).expect(401);
  });

  it('answers 401 for a token without a subject', async () => {
    const token = await new SignJWT({ name: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('accounts')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    await get('/me', `Bearer ${token}`).expect(401);
  });

  it('defect 5: answers 401 for a correctly signed token without an expiry', async () => {
    const token = await new SignJWT({ name: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u1')
      .setIssuer('accounts')
      .sign(new TextEncoder().encode(SECRET));
    const res = await get('/me', `Bearer ${token}`).expect(401);
    expect(res.body.message).toMatch(/exp/);
  });

  it('defect 8: answers 401 for a correctly signed token whose sub or name holds a NUL byte, before the directory sees it', async () => {
    const seen = RecordingDirectory.seen.length;
    await get('/me', `Bearer ${await sign({ sub: 'u\u00001' })}`).expect(401);
    await get('/me', `Bearer ${await sign({ name: 'Al\u0000ice' })}`).expect(401);
    expect(RecordingDirectory.seen.length).toBe(seen);
  });

  it('answers 401 for a token whose exp lies beyond ACCOUNT_JWT_MAX_AGE, and accepts one within it (defect 10)', async () => {
    const farFuture = await get('/me', `Bearer ${await sign({ expiresIn: '3650d' })}`).expect(401);
    expect(JSON.stringify(farFuture.body)).toMatch(/ACCOUNT_JWT_MAX_AGE/);
    await get('/me', `Bearer ${await sign({ expiresIn: '8d' })}`).expect(401);
    await get('/me', `Bearer ${await sign({ expiresIn: '7d' })}`).expect(200);
  });

  it('refuses application and bot tokens on account routes, naming their kind', async () => {
    const app = await get('/me', 'Bearer sop_0123456789abcdef0123456789abcdef0123456').expect(401);
    expect(app.body.message).toBe('This route takes an account JWT, not an application token (sop_…)');
    const bot = await get('/me', 'Bearer sbot_0123456789abcdef0123456789abcdef0123456').expect(401);
    expect(bot.body.message).toBe('This route takes an account JWT, not a bot token (sbot_…)');
  });

  it('calls a malformed bearer malformed rather than an application or bot token', async () => {
    const res = await get('/me', 'Bearer not-a-jwt').expect(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(res.body.message).toBe(
      'The bearer token is malformed: this route takes an account JWT, which has three dot-separated parts',
    );
  });

  it('lets platform staff through the admin guard and answers 403 to everyone else', async () => {
    await get('/me/admin', `Bearer ${await sign({ roles: [PLATFORM_ADMIN_ROLE] })}`).expect(200);
    const res = await get('/me/admin', `Bearer ${await sign()}`).expect(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });

  it('refuses a state-changing staff call from another site and lets reads and same-site calls through (defect 5)', async () => {
    const staff = `Bearer ${await sign({ roles: [PLATFORM_ADMIN_ROLE] })}`;
    const post = () => request(app.getHttpServer()).post('/me/admin').set('Authorization', staff);
    const crossSite = await post().set('Sec-Fetch-Site', 'cross-site').send({});
    expect({ status: crossSite.status, code: crossSite.body.error.code }).toEqual({ status: 403, code: 'FORBIDDEN' });
    await post().set('Origin', 'https://elsewhere.example').send({}).expect(403);
    await post().set('Sec-Fetch-Site', 'same-origin').set('Origin', 'https://elsewhere.example').send({}).expect(200);
    await post().send({}).expect(200);
    await get('/me/admin', staff).set('Sec-Fetch-Site', 'cross-site').expect(200);
  });
});

describe('account auth configuration', () => {
  it('refuses the development secret in production', () => {
    expect(() => loadConfig(AccountAuthConfig, { NODE_ENV: 'production' })).toThrow(/ACCOUNT_JWT_SECRET/);
  });

  const PRODUCTION = {
    NODE_ENV: 'production',
    COORDINATION_BACKEND: 'redis',
    ACCOUNT_JWT_ISSUER: 'https://accounts.example.com',
    ACCOUNT_JWT_AUDIENCE: 'open-platform',
  };

  it('accepts production with a JWKS URL instead of a secret', () => {
    const config = loadConfig(AccountAuthConfig, {
      ...PRODUCTION,
      ACCOUNT_JWKS_URL: 'https://accounts.example.com/jwks.json',
    });
    expect(config.ACCOUNT_JWKS_URL).toBe('https://accounts.example.com/jwks.json');
  });

  it('defect 5: production refuses to start without issuer and audience, with an http: JWKS URL or a secret under 32 bytes', () => {
    const secret = 'x'.repeat(32);
    expect(() => loadConfig(AccountAuthConfig, { ...PRODUCTION, ACCOUNT_JWT_SECRET: secret })).not.toThrow();
    expect(() =>
      loadConfig(AccountAuthConfig, { ...PRODUCTION, ACCOUNT_JWT_ISSUER: '', ACCOUNT_JWT_SECRET: secret }),
    ).toThrow(/ACCOUNT_JWT_ISSUER/);
    expect(() =>
      loadConfig(AccountAuthConfig, { NODE_ENV: 'production', ACCOUNT_JWT_ISSUER: 'i', ACCOUNT_JWT_SECRET: secret }),
    ).toThrow(/ACCOUNT_JWT_AUDIENCE/);
    expect(() =>
      loadConfig(AccountAuthConfig, { ...PRODUCTION, ACCOUNT_JWKS_URL: 'http://accounts.example.com/jwks.json' }),
    ).toThrow(/ACCOUNT_JWKS_URL/);
    expect(() => loadConfig(AccountAuthConfig, { ...PRODUCTION, ACCOUNT_JWT_SECRET: 'x'.repeat(31) })).toThrow(
      /ACCOUNT_JWT_SECRET: at least 32 bytes/,
    );
  });
});
