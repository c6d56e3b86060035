import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '@app/testing';

export const APPS = ['voucher-api', 'bot-api', 'bot-dispatcher'] as const;
export type AppName = (typeof APPS)[number];

export interface Release {
  version: string;
  commit: string;
}

export interface PreviousRelease extends Release {
  /** How it was found: `tag voucher-api@1.0.0`, or `release commit 1a2b3c4` in a clone without tags. */
  foundBy: string;
}

/** An app built from one release: the workspace its `dist/` is in, and the release it must report. */
export interface AppBuild {
  app: AppName;
  /** `previous` or `new`: names its replicas and the answers they give. */
  label: 'previous' | 'new';
  release: Release;
  root: string;
}

/** The subject of the commit `nx release` makes (nx.json `release.git.commitMessage`). */
export const RELEASE_COMMIT_SUBJECT = 'chore(release): publish';

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * The releases named by `nx release` commits in HEAD's history, newest first per app: each such commit
 * lists `- project: <app> <version>` in its body. For clones that came without tags.
 */
export function releasesByCommitMessage(repo: string): Map<AppName, PreviousRelease> {
  const log = git(
    ['log', '--fixed-strings', `--grep=${RELEASE_COMMIT_SUBJECT}`, '--format=%H%x1f%B%x1e', 'HEAD'],
    repo,
  );
  const found = new Map<AppName, PreviousRelease>();
  for (const record of log.split('\x1e')) {
    const [commit, message = ''] = record.trim().split('\x1f');
    if (!commit || !message.startsWith(RELEASE_COMMIT_SUBJECT)) continue;
    for (const line of message.split('\n')) {
      const project = /^- project: (\S+) (\S+)$/.exec(line.trim());
      const app = APPS.find((name) => name === project?.[1]);
      if (app && project && !found.has(app)) {
        found.set(app, { version: project[2], commit, foundBy: `release commit ${commit.slice(0, 7)}` });
      }
    }
  }
  return found;
}

/**
 * The previous release of each app: its latest tag `<app>@<version>` reachable from HEAD (the highest
 * version), else the latest release commit naming it. Throws, naming the app and what to fetch, when
 * neither exists.
 */
export function findPreviousReleases(repo: string = REPO_ROOT): Record<AppName, PreviousRelease> {
  let byMessage: Map<AppName, PreviousRelease> | undefined;
  const releases = {} as Record<AppName, PreviousRelease>;
  for (const app of APPS) {
    const [tag] = git(['tag', '--merged', 'HEAD', '--list', `${app}@*`, '--sort=-v:refname'], repo)
      .split('\n')
      .filter(Boolean);
    if (tag) {
      const commit = git(['rev-list', '-n', '1', tag], repo);
      releases[app] = { version: tag.slice(app.length + 1), commit, foundBy: `tag ${tag}` };
      continue;
    }
    byMessage ??= releasesByCommitMessage(repo);
    const released = byMessage.get(app);
    if (!released) {
      throw new Error(
        `no previous release of ${app}: no tag ${app}@<version> is reachable from HEAD and no "${RELEASE_COMMIT_SUBJECT}" ` +
          `commit in HEAD's history names ${app} (a shallow clone, or one without tags: git fetch --tags --unshallow)`,
      );
    }
    releases[app] = released;
  }
  return releases;
}

/** Runs a command to its end without blocking the test's event loop; fails with the end of its output. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${code}:\n${output.slice(-4000)}`)),
    );
  });
}

/** `nx run-many -t build` of some apps in a workspace, without the daemon. */
async function nxBuild(root: string, apps: readonly AppName[]): Promise<void> {
  const nx = join(root, 'node_modules', '.bin', 'nx');
  await run(nx, ['run-many', '-t', 'build', '-p', apps.join(','), '--outputStyle=static'], root, {
    NX_DAEMON: 'false',
    NX_TUI: 'false',
  });
}

/** This checkout's apps, built as they are (working tree included), reporting HEAD's commit. */
export async function buildCurrent(): Promise<Record<AppName, AppBuild>> {
  await nxBuild(REPO_ROOT, APPS);
  const commit = git(['rev-parse', 'HEAD'], REPO_ROOT);
  const builds = {} as Record<AppName, AppBuild>;
  for (const app of APPS) {
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'apps', app, 'package.json'), 'utf8')) as Release;
    builds[app] = { app, label: 'new', release: { version: manifest.version, commit }, root: REPO_ROOT };
  }
  return builds;
}

export interface PreviousBuilds {
  builds: Record<AppName, AppBuild>;
  /** What each worktree did for its node_modules, for the report. */
  notes: string[];
  remove(): Promise<void>;
}

/**
 * Each previous release built from a `git worktree` of its commit (one per distinct commit), in a
 * temporary folder. Its node_modules: this checkout's when the commit's lock file is the same, else its
 * own `npm ci`.
 */
export async function buildPrevious(releases: Record<AppName, PreviousRelease>): Promise<PreviousBuilds> {
  const byCommit = new Map<string, AppName[]>();
  for (const app of APPS) byCommit.set(releases[app].commit, [...(byCommit.get(releases[app].commit) ?? []), app]);
  const worktrees: Array<{ dir: string; linked: boolean }> = [];
  const notes: string[] = [];
  const builds = {} as Record<AppName, AppBuild>;
  const remove = async () => {
    for (const { dir, linked } of worktrees.splice(0)) {
      // The link goes first: removing the worktree must never reach into this checkout's node_modules.
      if (linked) unlinkSync(join(dir, 'node_modules'));
      await run('git', ['worktree', 'remove', '--force', dir], REPO_ROOT).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    for (const [commit, apps] of byCommit) {
      const dir = mkdtempSync(join(tmpdir(), 'upgrade-previous-'));
      await run('git', ['worktree', 'add', '--detach', dir, commit], REPO_ROOT);
      const entry = { dir, linked: false };
      worktrees.push(entry);
      const sameLock = readFileSync(join(dir, 'package-lock.json')).equals(
        readFileSync(join(REPO_ROOT, 'package-lock.json')),
      );
      if (sameLock) {
        symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
        entry.linked = true;
      } else {
        await run('npm', ['ci', '--no-audit', '--no-fund'], dir);
      }
      notes.push(`${commit.slice(0, 7)} (${apps.join(', ')}): ${sameLock ? "this checkout's node_modules" : 'npm ci'}`);
      await nxBuild(dir, apps);
      for (const app of apps) {
        if (!existsSync(join(dir, 'dist', 'apps', app)))
          throw new Error(`the build of ${app} at ${commit} made nothing`);
        const { version } = releases[app];
        builds[app] = { app, label: 'previous', release: { version, commit }, root: dir };
      }
    }
  } catch (error) {
    await remove();
    throw error;
  }
  return { builds, notes, remove };
}
