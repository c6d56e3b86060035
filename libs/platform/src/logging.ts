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

export function loggingModule(service: string, level: string): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: {
      level,
      name: service,
      genReqId: (req: IncomingMessage) => assignRequestId(req as Request),
      customProps: (req: IncomingMessage) => ({ requestId: (req as Request & { id?: string }).id }),
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        // The query string may hold signed upload parameters: log the path only.
        req: (req: { id: string; method: string; url: string; headers: Record<string, unknown> }) => ({
          id: req.id,
          method: req.method,
          url: req.url?.split('?')[0],
          headers: req.headers,
        }),
      },
      autoLogging: { ignore: (req: IncomingMessage) => req.url?.startsWith('/health') ?? false },
    },
  });
}
