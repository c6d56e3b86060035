import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { REPO_ROOT } from './service-process';

export interface ReportedRelease {
  version: string;
  commit: string;
}

/**
 * The release an app of this checkout must report when run from its sources: the version in its own
 * package.json and git's HEAD, read here rather than through the app's code.
 */
export function checkoutRelease(app: 'voucher-api' | 'bot-api' | 'bot-dispatcher'): ReportedRelease {
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8')) as {
    version: string;
  };
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  return { version: manifest.version, commit };
}

/** Liveness names the release, and `/metrics` has its build-info series at 1. */
export async function expectReleaseReported(server: Parameters<typeof request>[0], release: ReportedRelease) {
  const live = await request(server).get('/health/live').expect(200);
  expect(live.body).toEqual({ status: 'ok', ...release });
  const { text } = await request(server).get('/metrics').expect(200);
  expect(text).toContain('# TYPE app_build_info gauge');
  expect(text).toContain(`app_build_info{version="${release.version}",commit="${release.commit}"} 1\n`);
}
