import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumExecutable } from './chromium';

describe('the Chromium of the browser tests', () => {
  let bin: string;
  let systemChromium: string;

  beforeAll(() => {
    bin = mkdtempSync(join(tmpdir(), 'chromium-path-'));
    systemChromium = join(bin, 'chromium');
    writeFileSync(systemChromium, '#!/bin/sh\n');
    chmodSync(systemChromium, 0o755);
  });
  afterAll(() => rmSync(bin, { recursive: true, force: true }));

  it('is a system chromium found on the PATH when there is one', async () => {
    expect(await chromiumExecutable({ PATH: `/nonexistent:${bin}` })).toEqual({
      path: systemChromium,
      source: 'the PATH',
    });
  });

  it('is the one CHROMIUM_PATH names, and refuses a path that is not an executable', async () => {
    expect(await chromiumExecutable({ PATH: '', CHROMIUM_PATH: systemChromium })).toEqual({
      path: systemChromium,
      source: 'CHROMIUM_PATH',
    });
    await expect(chromiumExecutable({ CHROMIUM_PATH: join(bin, 'missing') })).rejects.toThrow(
      /CHROMIUM_PATH=.*missing is not an executable file/,
    );
  });

  it('is the build the npm package ships when none is on the PATH or CHROMIUM_PATH=bundled hides it', async () => {
    const bundled = await chromiumExecutable({ PATH: '/nonexistent' });
    expect(bundled.source).toBe('the npm package @sparticuz/chromium');
    expect(await chromiumExecutable({ PATH: bin, CHROMIUM_PATH: 'bundled' })).toEqual(bundled);
  }, 60_000);
});
