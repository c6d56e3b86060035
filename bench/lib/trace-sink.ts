import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A collector stand-in for `--tracing`: takes the apps' OTLP/HTTP exports and drops them, so the run
 * measures what tracing costs the apps (spans, context, export) and not a collector's speed.
 */
export async function startTraceSink(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
