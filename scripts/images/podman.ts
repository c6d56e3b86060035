/** podman for the images test: the test's own containers.conf, output captured, failures with their output. */
import { execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const CONTAINERS_CONF = resolve(__dirname, 'containers.conf');
/** What build-base-image.sh imports: Debian bookworm with Node.js 24.21.0 and an npm of its line. */
export const LOCAL_NODE_BASE = 'localhost/open-platform-node-base:24.21.0';

const env = () => ({ ...process.env, CONTAINERS_CONF });

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs podman and resolves with its exit code and output, whatever the code. */
export function podmanResult(args: string[]): Promise<Result> {
  return new Promise((resolveRun) => {
    execFile('podman', args, { cwd: REPO_ROOT, env: env(), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Runs podman and resolves with its standard output; rejects with the output when it fails. */
export async function podman(args: string[]): Promise<string> {
  const result = await podmanResult(args);
  if (result.code !== 0) {
    throw new Error(`podman ${args.join(' ')} exited with ${result.code}:\n${result.stderr}${result.stdout}`);
  }
  return result.stdout.trim();
}

/** The release an image is built from: its app's version and the commit (docs/deployment.md#releases). */
export interface ImageRelease {
  version: string;
  commit: string;
}

/**
 * Builds one image from the repository root into `log`, with the release's version and commit as the
 * OCI labels and the commit as the build argument the app reports it from (the build context has no .git);
 * rejects with the log's end when the build fails.
 */
export function buildImage(
  dockerfile: string,
  tag: string,
  baseImage: string,
  log: string,
  release: ImageRelease,
): Promise<void> {
  const args = [
    'build',
    // Keeps HEALTHCHECK (the OCI format has no such field).
    '--format=docker',
    // Build steps reach the npm registry through the host's network, as in the runs below.
    '--network=host',
    `--build-arg=NODE_IMAGE=${baseImage}`,
    `--build-arg=BUILD_COMMIT=${release.commit}`,
    `--label=org.opencontainers.image.version=${release.version}`,
    `--label=org.opencontainers.image.revision=${release.commit}`,
    `--file=${dockerfile}`,
    `--tag=${tag}`,
    '.',
  ];
  return new Promise((resolveBuild, reject) => {
    const out = createWriteStream(log);
    const child = spawn('podman', args, { cwd: REPO_ROOT, env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const keep = (chunk: Buffer) => {
      out.write(chunk);
      tail = (tail + chunk.toString()).slice(-4000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code) => {
      out.end();
      if (code === 0) resolveBuild();
      else reject(new Error(`building ${tag} failed (${code}); end of ${log}:\n${tail}`));
    });
  });
}
