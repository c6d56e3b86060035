import {
  DynamicModule,
  Inject,
  MiddlewareConsumer,
  Module,
  NestModule,
  OnApplicationShutdown,
  RequestMethod,
} from '@nestjs/common';
import { Logger, PARAMS_PROVIDER_TOKEN, PinoLogger } from 'nestjs-pino';
import pino, { type Logger as PinoInstance } from 'pino';
import { assignRequestId } from '@app/envelope';
import { flushTracing, traceLogFields, tracingActive } from '@app/telemetry';
import type { NextFunction, Request, Response } from 'express';
import { isWarmUpRequest } from './warm-up';

/**
 * Nest's own start-up chatter: a line per module, controller and route (hundreds of route mappings).
 * Logged at debug rather than info, so that a start says what matters: where the app listens, how its
 * warm-up went, warnings and errors.
 */
const FRAMEWORK_CONTEXTS = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/** Anything that can carry a credential is removed before a line is written. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-service-signature"]',
  'req.headers["x-service-signature-v2"]',
  'res.headers["set-cookie"]',
  '*.token',
  '*.one_time_token',
  '*.secret_token',
  '*.password',
  '*.qr_token',
  '*.redeem_code',
];

/** The request headers worth a log line; credentials and signatures never reach the serializer at all. */
const LOGGED_REQUEST_HEADERS = [
  'user-agent',
  'content-type',
  'content-length',
  'origin',
  'x-request-id',
  'idempotency-key',
];

/**
 * Telegram-style paths carry the bot token as a segment (`/telegram/bot<token>/…`,
 * `/telegram/file/bot<token>/…`, and the same without `/telegram`), in any letter case and with
 * doubled slashes, since a path the router refuses is logged too.
 */
const TOKEN_IN_PATH = /^(\/+(?:telegram\/+)?(?:file\/+)?bot)[^/]+/i;
/** A bot or application token anywhere else in a path, however it got there. */
const TOKEN_ANYWHERE = /\b(sbot|sop)_[A-Za-z0-9_-]+/gi;

/**
 * A small request record: the path without its query string (it may hold signed upload parameters)
 * and without a bot token that a Telegram-style path carries.
 */
export function requestLogRecord(req: { id: string; method: string; url: string; headers: Record<string, unknown> }) {
  const headers: Record<string, unknown> = {};
  for (const name of LOGGED_REQUEST_HEADERS) {
    if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  }
  const path = req.url?.split('?')[0]?.replace(TOKEN_IN_PATH, '$1[redacted]').replace(TOKEN_ANYWHERE, '$1_[redacted]');
  return { id: req.id, method: req.method, url: path, headers };
}

const LOG_ROOT = Symbol('LOG_ROOT');

/**
 * The process's one pino logger: Nest's own lines (bootstrap, warnings, errors) go through it, redacted.
 * While tracing is on, every line written inside traced work carries its `trace_id` and `span_id`;
 * while it is off, lines are built exactly as before (no mixin at all).
 */
export function rootLogger(service: string, level: string, destination?: NodeJS.WritableStream): PinoInstance {
  const options: pino.LoggerOptions = { level, name: service, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (tracingActive()) options.mixin = traceLogFields;
  return destination ? pino(options, destination) : pino(options);
}

/** nestjs-pino's Nest logger, with Nest's start-up chatter (FRAMEWORK_CONTEXTS) moved to debug. */
export class ServiceLogger extends Logger {
  override log(message: unknown, ...optionalParams: unknown[]): void {
    const context = optionalParams[optionalParams.length - 1];
    if (typeof context === 'string' && FRAMEWORK_CONTEXTS.has(context)) this.debug(message, ...optionalParams);
    else super.log(message, ...optionalParams);
  }
}

/**
 * The Nest logger of a process before its app exists (main.ts, through loadConfigOrExit): the lines it
 * writes then (the coordination backend, a failed boot) have the app's format, not Nest's coloured text.
 */
export function processLogger(service: string, level: string): ServiceLogger {
  return new ServiceLogger(new PinoLogger({ pinoHttp: { logger: rootLogger(service, level) } }), {});
}

/**
 * One line per answered request: id, method, path, status and milliseconds. It replaces pino-http and
 * nestjs-pino's request middleware, which per request made two child loggers, ran the serializers and
 * the redaction walk, and entered an AsyncLocalStorage context (on Node 20 that turns on promise hooks
 * for every promise the request creates) only so `PinoLogger` could find a request-bound child that no
 * code here asks for. The record is built from an allow-list, so the line needs no redaction pass.
 */
export function requestLogMiddleware(root: PinoInstance) {
  const lines = root.child({}, { redact: [] });
  return (req: Request, res: Response, next: NextFunction): void => {
    assignRequestId(req);
    if (req.originalUrl.startsWith('/health')) return next();
    const startedAt = Date.now();
    const warmUp = isWarmUpRequest(req);
    res.once('close', () => {
      const record = {
        req: requestLogRecord({ id: req.id as string, method: req.method, url: req.originalUrl, headers: req.headers }),
        res: { statusCode: res.statusCode },
        responseTime: Date.now() - startedAt,
      };
      // The app's own warm-up (a count and a duration in one line at its end) is no caller's traffic.
      if (warmUp) lines.debug({ ...record, warm_up: true }, 'warm-up request completed');
      else if (!res.writableFinished) lines.warn(record, 'request aborted');
      else if (res.statusCode >= 500) lines.error(record, 'request errored');
      else lines.info(record, 'request completed');
    });
    next();
  };
}

@Module({})
class RequestLoggingModule implements NestModule, OnApplicationShutdown {
  constructor(@Inject(LOG_ROOT) private readonly root: PinoInstance) {}

  /** The spans of the last requests and jobs leave with the process, like its last log lines. */
  async onApplicationShutdown(): Promise<void> {
    await flushTracing();
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(requestLogMiddleware(this.root)).forRoutes({ path: '{*path}', method: RequestMethod.ALL });
  }
}

/**
 * Nest's logger (ServiceLogger, under nestjs-pino's `Logger` token, used by `app.useLogger`) over one pino
 * instance, plus the request line.
 */
export function loggingModule(service: string, level: string): DynamicModule {
  return {
    module: RequestLoggingModule,
    global: true,
    providers: [
      { provide: LOG_ROOT, useFactory: () => rootLogger(service, level) },
      {
        provide: PARAMS_PROVIDER_TOKEN,
        useFactory: (root: PinoInstance) => ({ pinoHttp: { logger: root } }),
        inject: [LOG_ROOT],
      },
      PinoLogger,
      {
        provide: Logger,
        useFactory: (logger: PinoLogger, params: { renameContext?: string }) => new ServiceLogger(logger, params),
        inject: [PinoLogger, PARAMS_PROVIDER_TOKEN],
      },
    ],
    exports: [PinoLogger, Logger],
  };
}
