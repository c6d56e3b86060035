import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { freePort, reservePort, startServiceProcess } from './service-process';

const FIXTURE = 'libs/testing/src/fixtures/port-taken-once.main.ts';

describe('service processes of the tests', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'service-process-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('starts the process again on another port when the probed port was taken before it listened', async () => {
    const marker = join(dir, 'first-port');
    const service = await startServiceProcess(FIXTURE, { PORT_TAKEN_MARKER: marker }, 20_000);
    try {
      expect(service.port).not.toBe(Number(readFileSync(marker, 'utf8')));
      expect((await fetch(`http://127.0.0.1:${service.port}/health/ready`)).status).toBe(200);
    } finally {
      await service.stop();
    }
  }, 30_000);

  it('does not retry a process that fails for another reason', async () => {
    await expect(
      startServiceProcess(FIXTURE, { PORT_TAKEN_MARKER: join(dir, 'missing', 'marker') }, 20_000),
    ).rejects.toThrow(/exited with 1/);
  }, 30_000);

  it('hands out free ports below the range outgoing connections take their local ports from', async () => {
    const ephemeralStart = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0],
    );
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(ephemeralStart);
    }
  });

  it('holds a reserved port until it is released', async () => {
    const reserved = await reservePort();
    const bind = () =>
      new Promise<void>((resolve, reject) => {
        const server = createServer();
        server.once('error', reject);
        server.listen(reserved.port, '127.0.0.1', () => server.close(() => resolve()));
      });
    await expect(bind()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await reserved.release();
    await expect(bind()).resolves.toBeUndefined();
  });
});
