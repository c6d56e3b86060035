import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startVoucherApp, VoucherTestContext } from '../apps/voucher-api/test/app-context';
import { listen, REPO_ROOT, startCommand } from './e2e-support';
import { codeBlocks, section } from './markdown';

const README = readFileSync(resolve(__dirname, '..', 'README.md'), 'utf8');
const HEADING = 'Vouchers over sealed transport';
const START_BLOCK = /^SEALED_TRANSPORT=required npm start$/;

/**
 * The sealed walk of the README, run as written: its TypeScript saved where the README says, and its
 * command run, against a voucher-api that accepts runtime calls only sealed.
 */
describe('the README sealed-transport quickstart, run as written against voucher-api in required mode', () => {
  let voucher: VoucherTestContext;
  let url: string;
  let workDir: string;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'sealed-quickstart-'));
    voucher = await startVoucherApp({ SEALED_TRANSPORT: 'required' });
    url = await listen(voucher.app);
  }, 60_000);

  afterAll(async () => {
    await voucher?.close();
    rmSync(workDir, { recursive: true, force: true });
  });

  it('refuses a plain runtime call with 403 SEALED_TRANSPORT_REQUIRED naming the sealed route; health stays plain', async () => {
    const res = await request(voucher.app.getHttpServer())
      .post('/api/v1/open-platform/vouchers/verify')
      .set('Authorization', 'Bearer sop_whatever')
      .send({ credential: { type: 'redeem_code', value: 'ABC123' } });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('SEALED_TRANSPORT_REQUIRED');
    expect(res.body.message).toContain('POST /api/v1/open-platform/sealed');
    await request(voucher.app.getHttpServer()).get('/health/live').expect(200);
  });

  it('takes a voucher from a new application through sealed issue, verify and redeem to a sealed reversal', async () => {
    const blocks = codeBlocks(section(README, HEADING));
    const program = blocks.filter((block) => block.lang === 'ts');
    const commands = blocks.filter((block) => block.lang === 'sh' && !START_BLOCK.test(block.code));
    expect(blocks.some((block) => START_BLOCK.test(block.code))).toBe(true);
    expect(program).toHaveLength(1);
    expect(commands).toHaveLength(1);
    expect(program[0].code).toContain("'http://localhost:3001'");
    const file = join(workDir, 'sealed-quickstart.ts');
    writeFileSync(file, program[0].code.split('http://localhost:3001').join(url));
    expect(commands[0].code).toContain('sealed-quickstart.ts');
    const script = `set -euo pipefail\n${commands[0].code.split(' sealed-quickstart.ts').join(` '${file}'`)}\n`;

    const shell = startCommand('bash', ['-c', script], {
      ACCOUNT_JWT_SECRET: voucher.config.ACCOUNT_JWT_SECRET,
      ACCOUNT_JWT_ISSUER: '',
      ACCOUNT_JWT_AUDIENCE: '',
      // The program lives outside the repository here: its imports resolve as they would inside it.
      NODE_PATH: join(REPO_ROOT, 'node_modules'),
      TS_NODE_PROJECT: join(REPO_ROOT, 'tsconfig.json'),
    });
    try {
      const code = await shell.exitCode;
      if (code !== 0) throw new Error(`the sealed quickstart stopped with exit code ${code}:\n${shell.output()}`);
      const output = shell.output();
      expect(output).toMatch(/^reviewing\nactive\n/m);
      expect(output).toContain('{"status":"available","redeemable":true}');
      expect(output).toContain('{"redemption":"reversed","voucher":"available"}');
    } finally {
      await shell.stop();
    }
    // The six runtime calls (create and submit the template, issue, verify, redeem, reverse) went sealed.
    const [{ n }] = await voucher.app.get(DataSource).query(`SELECT count(*)::int AS n FROM sealed_request_ids`);
    expect(n).toBe(6);
  }, 120_000);
});
