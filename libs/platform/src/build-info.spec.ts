import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILD_INFO_FILE, buildInfoOfWorkspace, readBuildInfo, UNKNOWN_COMMIT, writeBuildInfo } from './build-info';

const REPO_ROOT = join(__dirname, '..', '..', '..');
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();

describe('build info', () => {
  let dir: string;
  /** An app outside any git checkout: its root (with package.json) and the folder its compiled main.js is in. */
  let appRoot: string;
  let outDir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'build-info-'));
    appRoot = join(dir, 'apps', 'shop-api');
    outDir = join(dir, 'dist', 'apps', 'shop-api', 'src');
    mkdirSync(appRoot, { recursive: true });
    mkdirSync(outDir, { recursive: true });
    writeFileSync(join(appRoot, 'package.json'), JSON.stringify({ name: 'shop-api', version: '2.3.4', private: true }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the version of the app manifest and BUILD_COMMIT into the build, which a built app reads without git', () => {
    writeBuildInfo(appRoot, outDir, { BUILD_COMMIT: 'a1b2c3d4' });
    // The workspace is gone at run time (an image holds the compiled files only).
    rmSync(appRoot, { recursive: true });
    expect(readBuildInfo(outDir)).toEqual({ version: '2.3.4', commit: 'a1b2c3d4' });
  });

  it('takes the commit from git when BUILD_COMMIT is not set', () => {
    const inCheckout = buildInfoOfWorkspace(join(REPO_ROOT, 'apps', 'voucher-api'), {});
    expect(inCheckout.commit).toBe(HEAD);
  });

  it('says the commit is unknown when neither BUILD_COMMIT nor git can tell', () => {
    expect(buildInfoOfWorkspace(appRoot, { BUILD_COMMIT: '  ' }).commit).toBe(UNKNOWN_COMMIT);
  });

  it('reads the workspace when running from the sources, where no build wrote a file', () => {
    expect(readBuildInfo(join(REPO_ROOT, 'apps', 'bot-api', 'src'))).toEqual({
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
      commit: HEAD,
    });
  });

  it('refuses a manifest without a version', () => {
    writeFileSync(join(appRoot, 'package.json'), JSON.stringify({ name: 'shop-api' }));
    expect(() => writeBuildInfo(appRoot, outDir, {})).toThrow(/package\.json has no version/);
  });

  it('refuses to start a build whose file holds no version and commit, or that has no file at all', () => {
    writeFileSync(join(outDir, BUILD_INFO_FILE), JSON.stringify({ version: '2.3.4' }));
    expect(() => readBuildInfo(outDir)).toThrow(/holds no version and commit/);
    rmSync(join(outDir, BUILD_INFO_FILE));
    expect(() => readBuildInfo(outDir)).toThrow(/build-info\.json is missing: build the app/);
  });
});
