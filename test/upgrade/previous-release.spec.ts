import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findPreviousReleases, RELEASE_COMMIT_SUBJECT } from './previous-release';

describe('the previous release the upgrade test starts from', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Release', '-c', 'user.email=release@example.invalid', ...args], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();
  /** A commit as `nx release` makes it: the subject, then one line per released app. */
  const release = (projects: Record<string, string>) =>
    git(
      'commit',
      '--allow-empty',
      '-m',
      RELEASE_COMMIT_SUBJECT,
      '-m',
      Object.entries(projects)
        .map(([app, version]) => `- project: ${app} ${version}`)
        .join('\n'),
    );
  const change = (file: string) => {
    writeFileSync(join(repo, file), file);
    git('add', file);
    git('commit', '-m', `feat: ${file}`);
    return git('rev-parse', 'HEAD');
  };

  beforeEach(() => {
    repo = mkdtempSync(join(tmpdir(), 'previous-release-'));
    git('init', '-q', '-b', 'main');
    change('first');
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it("takes each app's highest tag reachable from HEAD, each at its own commit", () => {
    release({ 'voucher-api': '1.0.0', 'bot-api': '1.0.0', 'bot-dispatcher': '1.0.0' });
    const first = git('rev-parse', 'HEAD');
    for (const app of ['voucher-api', 'bot-api', 'bot-dispatcher']) git('tag', '-a', `${app}@1.0.0`, '-m', app);
    change('voucher-fix');
    release({ 'voucher-api': '1.0.1' });
    const second = git('rev-parse', 'HEAD');
    git('tag', '-a', 'voucher-api@1.0.1', '-m', 'voucher-api@1.0.1');
    // 1.0.10 sorts after 1.0.9 as a version, not as text; a tag on another branch is not HEAD's past.
    git('tag', '-a', 'bot-api@1.0.9', '-m', 'bot-api@1.0.9', first);
    git('tag', '-a', 'bot-api@1.0.10', '-m', 'bot-api@1.0.10', second);
    git('checkout', '-q', '-b', 'elsewhere');
    change('elsewhere');
    git('tag', '-a', 'bot-dispatcher@2.0.0', '-m', 'elsewhere');
    git('checkout', '-q', 'main');
    change('later');

    expect(findPreviousReleases(repo)).toEqual({
      'voucher-api': { version: '1.0.1', commit: second, foundBy: 'tag voucher-api@1.0.1' },
      'bot-api': { version: '1.0.10', commit: second, foundBy: 'tag bot-api@1.0.10' },
      'bot-dispatcher': { version: '1.0.0', commit: first, foundBy: 'tag bot-dispatcher@1.0.0' },
    });
  });

  it('falls back to the release commits named in the history when the clone has no tags', () => {
    release({ 'voucher-api': '1.0.0', 'bot-api': '1.0.0', 'bot-dispatcher': '1.0.0' });
    const first = git('rev-parse', 'HEAD');
    change('bot-fix');
    release({ 'bot-api': '1.1.0' });
    const second = git('rev-parse', 'HEAD');
    change('later');

    expect(findPreviousReleases(repo)).toEqual({
      'voucher-api': { version: '1.0.0', commit: first, foundBy: `release commit ${first.slice(0, 7)}` },
      'bot-api': { version: '1.1.0', commit: second, foundBy: `release commit ${second.slice(0, 7)}` },
      'bot-dispatcher': { version: '1.0.0', commit: first, foundBy: `release commit ${first.slice(0, 7)}` },
    });
  });

  it('fails with one line naming the app and what to fetch when neither a tag nor a release commit exists', () => {
    release({ 'voucher-api': '1.0.0', 'bot-api': '1.0.0' });
    expect(() => findPreviousReleases(repo)).toThrow(
      /^no previous release of bot-dispatcher: no tag bot-dispatcher@<version> is reachable from HEAD .* git fetch --tags --unshallow\)$/,
    );
  });
});
