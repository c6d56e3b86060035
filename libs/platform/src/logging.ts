import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import { assignRequestId } from '@app/envelope';
import type { Request } from 'express';

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

/** Telegram-style paths carry the bot token as a segment (`/telegram/bot<token>/…`, `/telegram/file/bot<token>/…`). */
const TOKEN_IN_PATH = /(\/telegram\/(?:file\/)?bot)[^/]+/;

/**
 * A small request record: the path without its query string (it may hold signed upload parameters)
 * and without a bot token that a Telegram-style path carries.
 */
export function requestLogRecord(req: { id: string; method: string; url: string; headers: Record<string, unknown> }) {
  const headers: Record<string, unknown> = {};
  for (const name of LOGGED_REQUEST_HEADERS) {
    if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  }
  const path = req.url?.split('?')[0]?.replace(TOKEN_IN_PATH, '$1[redacted]');
  return { id: req.id, method: req.method, url: path, headers };
}

export function loggingModule(service: string, level: string): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: {
      level,
      name: service,
      genReqId: (req: IncomingMessage) => assignRequestId(req as Request),
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      // Every line of a request carries `req.id` through the request record; a second binding of it
      // (customProps) costs two more child loggers per request. Whole header maps cost a serialisation
      // and a redaction pass on every request line.
      serializers: {
        req: requestLogRecord,
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      autoLogging: { ignore: (req: IncomingMessage) => req.url?.startsWith('/health') ?? false },
    },
  });
}
