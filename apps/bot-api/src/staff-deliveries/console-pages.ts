import express, { Response } from 'express';
import helmet from 'helmet';
import { join } from 'node:path';

/** Where the page lives; its files refer to each other under this path. */
export const CONSOLE_PATH = '/console';

/**
 * The staff console: three static files from this folder's `console/`. Its own origin only (no CDN,
 * no inline script), so it works where the platform has no third-party network access. The page holds
 * no secret; every call it makes goes to the staff API routes, which check the caller.
 */
const CONSOLE_DIR = join(__dirname, 'console');
const FILE_OPTIONS = {
  dotfiles: 'deny' as const,
  // Staff get a changed console at once after a deploy.
  cacheControl: false,
  headers: { 'Cache-Control': 'no-cache' },
};

export const consoleFiles = express
  .Router()
  // `/console` is the page itself; express.static would redirect it to the folder's URL `/console/`.
  .get(CONSOLE_PATH, (_req, res, next) =>
    res.sendFile('index.html', { ...FILE_OPTIONS, root: CONSOLE_DIR }, (error) => error && next(error)),
  )
  .use(
    CONSOLE_PATH,
    express.static(CONSOLE_DIR, {
      ...FILE_OPTIONS,
      redirect: false,
      setHeaders: (res: Response) => res.setHeader('Cache-Control', FILE_OPTIONS.headers['Cache-Control']),
    }),
  );

/** The page's headers: a CSP that allows nothing but its own files and the API on the same origin. */
export const consoleHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      connectSrc: ["'self'"],
      imgSrc: ["'self'"],
      baseUri: ["'none'"],
      formAction: ["'none'"],
      frameAncestors: ["'none'"],
    },
  },
  frameguard: { action: 'deny' },
  referrerPolicy: { policy: 'no-referrer' },
});
