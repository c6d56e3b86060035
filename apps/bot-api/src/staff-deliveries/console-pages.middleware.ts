import { Injectable, NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Asset {
  type: string;
  body: Buffer;
}

const FILES: Record<string, string> = {
  '/console': 'index.html',
  '/console/': 'index.html',
  '/console/console.js': 'console.js',
  '/console/console.css': 'console.css',
};
const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/**
 * The staff console: three static files, read once at start. Its own origin only (no CDN, no inline
 * script), so it works where the platform has no third-party network access. The page holds no
 * secret; every call it makes goes to the staff API routes, which check the caller.
 */
@Injectable()
export class ConsolePages implements NestMiddleware {
  private readonly assets = new Map<string, Asset>(
    Object.entries(FILES).map(([path, file]) => [
      path,
      { type: TYPES[file.split('.').pop() as string], body: readFileSync(join(__dirname, 'console', file)) },
    ]),
  );

  use(req: Request, res: Response, next: NextFunction): void {
    const asset = this.assets.get(req.originalUrl.split('?')[0]);
    if (!asset || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    res.setHeader('Content-Type', asset.type);
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    res.status(200).end(req.method === 'HEAD' ? undefined : asset.body);
  }
}
