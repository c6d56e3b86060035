import { INestApplication, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import express from 'express';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from 'nestjs-pino';
import { ApiExpressAdapter } from './api-express-adapter';
import { ConfigError, loadConfig, ServiceConfig } from './config';
import { processLogger } from './logging';
import { WarmUpGate, warmUpApp, WarmUpReport } from './warm-up';

/**
 * Reads the configuration or exits non-zero with a message that names every bad variable. Given the
 * service's name (an app's main.ts), it also makes the lines logged before the app exists (the
 * coordination backend, a failed boot) the app's own: JSON in production, never Nest's coloured text.
 */
export function loadConfigOrExit<T extends ServiceConfig>(schema: new () => T, service?: string): T {
  try {
    const config = loadConfig(schema);
    if (service) NestLogger.overrideLogger(processLogger(service, config.LOG_LEVEL));
    return config;
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
}

/**
 * The HTTP adapter every app runs on (ApiExpressAdapter: the envelope's renderer, cheap global
 * middleware) over an express instance of its own. Express matches routes case-insensitively by default,
 * while every check of a path (route limits, log redaction, audits, an ingress rule) reads it as
 * written: `/API/v1/…` must not be a second spelling of a route that those checks miss. Express reads
 * the setting once, when its router is created, so it is set before Nest sees the instance.
 */
export function httpAdapter(): ApiExpressAdapter {
  const instance = express();
  instance.set('case sensitive routing', true);
  return new ApiExpressAdapter(instance);
}

/** Settings every HTTP app needs and that cannot live in a module (used by main.ts and by tests). */
export function configureHttpApp(app: INestApplication): void {
  const router = (app as NestExpressApplication).getHttpAdapter().getInstance().router as { caseSensitive?: boolean };
  if (!router.caseSensitive) throw new Error('create the app with httpAdapter(), whose routing is case-sensitive');
  (app as NestExpressApplication).disable('x-powered-by');
  (app as NestExpressApplication).set('query parser', 'extended');
  // No ETag on API answers (express would SHA-1 every body): they change with every write, and
  // integrators of Stripe- or Telegram-like APIs neither get nor send validators.
  (app as NestExpressApplication).set('etag', false);
}

/** How soon a connection whose answer was sent is closed once the shutdown has begun. */
const IDLE_CONNECTION_SWEEP_MS = 50;

/**
 * From the shutdown on, no connection outlives its answer. Node keeps an idle keep-alive connection for
 * keepAliveTimeout plus a second (6 s) even once the server is closing, and the server's close waits for
 * it: the drain lasted 6 s past the last answer and ran into SHUTDOWN_TIMEOUT_MS on a busy process. A
 * request that comes in now is answered with `Connection: close`; the connection of one already in
 * flight is closed as soon as it falls idle.
 */
function closeConnectionsOnceAnswered(server: Server): void {
  server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  });
  setInterval(() => server.closeIdleConnections(), IDLE_CONNECTION_SWEEP_MS).unref();
}

/**
 * Boots an app and guarantees a bounded shutdown: on SIGTERM/SIGINT Nest stops accepting
 * connections, drains in-flight requests and closes pools; a stuck drain is cut off after the timeout.
 */
export async function runHttpApp(
  module: unknown,
  config: ServiceConfig,
  afterCreate: (app: INestApplication) => void = () => undefined,
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(module as never, httpAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.useLogger(app.get(Logger));
  configureHttpApp(app);
  afterCreate(app);
  app.enableShutdownHooks();
  let shuttingDown = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      if (!shuttingDown) closeConnectionsOnceAnswered(app.getHttpServer() as Server);
      shuttingDown = true;
      setTimeout(() => {
        new NestLogger('Shutdown').error(`graceful shutdown exceeded ${config.SHUTDOWN_TIMEOUT_MS} ms; exiting`);
        process.exit(1);
      }, config.SHUTDOWN_TIMEOUT_MS).unref();
    });
  }
  await listenAndWarmUp(app, config);
  return app;
}

/**
 * Listens on HOST:PORT (see ServiceConfig.listenHost: loopback outside production unless HOST says
 * otherwise), then warms up (see warmUpApp). Readiness answers 503 from the first probe until the
 * warm-up has finished, since the gate closes before the server accepts a connection.
 */
export async function listenAndWarmUp(app: INestApplication, config: ServiceConfig): Promise<WarmUpReport | undefined> {
  if (config.WARM_UP) app.get(WarmUpGate, { strict: false }).begin();
  const host = config.listenHost;
  await (host === undefined ? app.listen(config.PORT) : app.listen(config.PORT, host));
  const { address, port } = app.getHttpServer().address() as AddressInfo;
  new NestLogger('Bootstrap').log(`listening on ${host === undefined ? 'every interface' : address}, port ${port}`);
  return warmUpApp(app, config);
}
