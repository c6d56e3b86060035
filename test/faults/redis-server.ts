import { ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from '@app/testing';

/**
 * A Redis server of the test's own, on a free port: a scenario may stop and start it without touching
 * the Redis other tests use. stop() and start() are idempotent, so a finally block can always restore it.
 */
export class TestRedis {
  private child?: ChildProcess;

  private constructor(readonly port: number) {}

  static async start(): Promise<TestRedis> {
    const redis = new TestRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async start(): Promise<void> {
    if (this.child) return;
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await this.answersPing())) {
      if (child.exitCode !== null || Date.now() > deadline) {
        this.child = undefined;
        throw new Error(`redis-server on port ${this.port} did not start`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the server as an outage does: every connection drops, nothing is saved. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }

  private answersPing(): Promise<boolean> {
    return new Promise((resolve) => {
      const socket = connect(this.port, '127.0.0.1');
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
  }
}
