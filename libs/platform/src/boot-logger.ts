import { Logger as NestLogger, type LoggerService } from '@nestjs/common';
import pino, { type DestinationStream } from 'pino';
import { REDACTED_PATHS } from './logging';

/**
 * What Nest logs before an app and its pino logger exist (the coordination mode, the lines of a boot that
 * fails) goes to Nest's default logger, which writes coloured text. In production every line must be a JSON
 * line a log pipeline can read, the first one too: this logger writes them as pino does, at the process's
 * LOG_LEVEL, until the app's own logger takes over (`app.useLogger`).
 */
export function jsonBootLogger(level: string, destination?: DestinationStream): LoggerService {
  const logger = pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
  const write =
    (method: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace') =>
    (message: unknown, ...params: unknown[]) => {
      // Nest passes the context last, and an error's stack before it.
      const context = typeof params[params.length - 1] === 'string' ? (params.pop() as string) : undefined;
      const stack = method === 'error' && typeof params[0] === 'string' ? params[0] : undefined;
      const text = message instanceof Error ? message.message : String(message);
      logger[method]({ context, ...(stack ? { stack } : {}) }, text);
    };
  return {
    fatal: write('fatal'),
    error: write('error'),
    warn: write('warn'),
    log: write('info'),
    debug: write('debug'),
    verbose: write('trace'),
  };
}

/** In production, Nest's lines before the app exists are JSON lines (jsonBootLogger); elsewhere Nest's own. */
export function useBootLogger(config: { NODE_ENV: string; LOG_LEVEL: string }): void {
  if (config.NODE_ENV === 'production') NestLogger.overrideLogger(jsonBootLogger(config.LOG_LEVEL));
}
