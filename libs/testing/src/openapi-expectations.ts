import type { INestApplication } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import request from 'supertest';
import { documentedRoutes, HttpRoute, registeredRoutes } from './http-routes';

type Operation = { security?: Array<Record<string, unknown>>; responses: Record<string, any> };

const key = (route: HttpRoute) => `${route.method.toUpperCase()} ${route.path}`;

function operations(document: OpenAPIObject, pathPrefix = ''): Operation[] {
  return Object.entries(document.paths)
    .filter(([path]) => path.startsWith(pathPrefix))
    .flatMap(([, item]) => Object.values(item as Record<string, Operation>));
}

/** Both directions: every route the running app serves is documented, and nothing else is. */
export function expectEveryRouteDocumented(app: INestApplication, document: OpenAPIObject, docsPath: string): void {
  // SwaggerModule mounts the UI, its assets and the JSON itself; they are the document, not part of it.
  const isDocsRoute = (route: HttpRoute) =>
    route.path === `/${docsPath}` || route.path === `/${docsPath}-json` || route.path.startsWith(`/${docsPath}/`);
  const registered = registeredRoutes(app)
    .filter((route) => !isDocsRoute(route))
    .map(key);
  const documented = documentedRoutes(document).map(key);
  expect(registered.length).toBeGreaterThan(3);
  expect(registered.filter((route) => !documented.includes(route))).toEqual([]);
  expect(documented.filter((route) => !registered.includes(route))).toEqual([]);
}

export async function expectDocsServed(
  app: INestApplication,
  document: OpenAPIObject,
  docsPath: string,
): Promise<void> {
  const json = await request(app.getHttpServer()).get(`/${docsPath}-json`).expect(200);
  expect(json.body.openapi).toMatch(/^3\./);
  expect(Object.keys(json.body.paths).sort()).toEqual(Object.keys(document.paths).sort());
  const ui = await request(app.getHttpServer()).get(`/${docsPath}`).expect(200);
  expect(ui.headers['content-type']).toMatch(/text\/html/);
}

/** Every declared security scheme is used by some operation, and no operation names an undeclared one. */
export function expectSecuritySchemesUsed(document: OpenAPIObject): void {
  const used = new Set(
    operations(document).flatMap((operation) =>
      (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
    ),
  );
  expect([...used].sort()).toEqual(Object.keys(document.components?.securitySchemes ?? {}).sort());
}

/**
 * API successes reference the success envelope, except a 204 (no body) and a success documented with
 * only non-JSON media (raw file bytes); API failures the error envelope and list their codes.
 */
export function expectEnvelopedResponses(document: OpenAPIObject, apiPrefix = '/api/'): void {
  const apiOperations = operations(document, apiPrefix);
  expect(apiOperations.length).toBeGreaterThan(0);
  for (const operation of apiOperations) {
    for (const [status, response] of Object.entries(operation.responses)) {
      const schema = JSON.stringify(response.content?.['application/json']?.schema);
      const raw = Number(status) === 204 || (response.content !== undefined && schema === undefined);
      if (Number(status) < 300 && !raw) expect(schema).toContain('#/components/schemas/SuccessEnvelope');
      if (Number(status) === 204) expect(response.content).toBeUndefined();
      if (Number(status) >= 400) {
        expect(schema).toContain('#/components/schemas/ErrorEnvelope');
        expect(response['x-error-codes'].length).toBeGreaterThan(0);
      }
    }
  }
}

export function expectHealthAndMetricsOutsideEnvelope(document: OpenAPIObject): void {
  expect(document.paths['/health/ready'].get?.security).toEqual([]);
  expect(document.paths['/health/ready'].get?.responses['503']).toBeDefined();
  const metrics = document.paths['/metrics'].get?.responses['200'] as { content?: object } | undefined;
  expect(Object.keys(metrics?.content ?? {})).toEqual(['text/plain']);
}
