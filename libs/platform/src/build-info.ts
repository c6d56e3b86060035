import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What a running process says it is: its app's release version and the commit it was built from. */
export interface BuildInfo {
  version: string;
  commit: string;
}

/**
 * Written beside the app's compiled `main.js` by its build (`nx run <app>:build`), so a built app,
 * an image above all, knows its version and commit without git or the workspace at run time.
 */
export const BUILD_INFO_FILE = 'build-info.json';

export const UNKNOWN_COMMIT = 'unknown';

function gitCommit(dir: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
  } catch {
    return UNKNOWN_COMMIT;
  }
}

/**
 * The version in the app's own package.json (`nx release` writes it) and the commit: BUILD_COMMIT when
 * set (an image build, whose context holds no `.git`), else git's HEAD, else `unknown`.
 */
export function buildInfoOfWorkspace(appRoot: string, env: NodeJS.ProcessEnv = process.env): BuildInfo {
  const manifest = JSON.parse(readFileSync(join(appRoot, 'package.json'), 'utf8')) as { version?: unknown };
  if (typeof manifest.version !== 'string' || manifest.version === '') {
    throw new Error(`${join(appRoot, 'package.json')} has no version`);
  }
  return { version: manifest.version, commit: env.BUILD_COMMIT?.trim() || gitCommit(appRoot) };
}

/** The build step: `node <dist>/libs/platform/src/build-info.js <appRoot> <dir of the compiled main.js>`. */
export function writeBuildInfo(appRoot: string, outDir: string, env: NodeJS.ProcessEnv = process.env): BuildInfo {
  const info = buildInfoOfWorkspace(appRoot, env);
  writeFileSync(join(outDir, BUILD_INFO_FILE), `${JSON.stringify(info)}\n`);
  return info;
}

/**
 * The build info of the app whose entry files are in `sourceDir` (an app module's `__dirname`): the file
 * its build wrote there, or, running from the TypeScript sources in development and tests, the workspace.
 */
export function readBuildInfo(sourceDir: string): BuildInfo {
  const file = join(sourceDir, BUILD_INFO_FILE);
  if (!existsSync(file)) {
    const appRoot = join(sourceDir, '..');
    if (!existsSync(join(appRoot, 'package.json'))) {
      throw new Error(`${file} is missing: build the app with \`nx run <app>:build\`, which writes it`);
    }
    return buildInfoOfWorkspace(appRoot);
  }
  const info = JSON.parse(readFileSync(file, 'utf8')) as Partial<BuildInfo>;
  if (typeof info.version !== 'string' || typeof info.commit !== 'string') {
    throw new Error(`${file} holds no version and commit: build the app again`);
  }
  return { version: info.version, commit: info.commit };
}

if (require.main === module) {
  const [appRoot, outDir] = process.argv.slice(2);
  if (!appRoot || !outDir) {
    process.stderr.write('usage: node build-info.js <app root> <directory of the compiled main.js>\n');
    process.exit(64);
  }
  const info = writeBuildInfo(appRoot, outDir);
  process.stdout.write(`${join(outDir, BUILD_INFO_FILE)}: ${info.version} ${info.commit}\n`);
}
