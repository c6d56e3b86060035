import type { INestApplication } from '@nestjs/common';
import { METHODS } from 'node:http';

export interface HttpRoute {
  method: string;
  /** OpenAPI form: `/api/v1/bots/my/{botId}`. */
  path: string;
}

interface ExpressLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/** Express's `/a/:id` and wildcard `/a/*rest` → OpenAPI's `/a/{id}`, `/a/{rest}`. */
export function toOpenApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Every endpoint the app registered on its Express router. Nest mounts route-bound middleware (body
 * parsing, metrics) with `app.all`, which Express records as a route answering every HTTP method;
 * those are skipped, since no controller here uses `@All()`.
 */
export function registeredRoutes(app: INestApplication): HttpRoute[] {
  const express = app.getHttpAdapter().getInstance() as { router?: { stack: ExpressLayer[] } };
  const stack = express.router?.stack ?? [];
  return stack.flatMap((layer) => {
    if (!layer.route) return [];
    if (layer.route.methods._all || Object.keys(layer.route.methods).length >= METHODS.length) return [];
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    const methods = Object.keys(layer.route.methods).filter((method) => layer.route?.methods[method]);
    return paths.flatMap((path) =>
      methods.map((method) => ({ method: method.toLowerCase(), path: toOpenApiPath(path) })),
    );
  });
}

/** Every operation of an OpenAPI document. */
export function documentedRoutes(document: { paths: object }): HttpRoute[] {
  const methods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
  return Object.entries(document.paths as Record<string, object>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => methods.has(key))
      .map((method) => ({ method, path })),
  );
}
