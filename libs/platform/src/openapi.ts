import { applyDecorators, INestApplication, RequestMethod, Type } from '@nestjs/common';
import { GUARDS_METADATA, HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { ApiExtension, ApiResponse, DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ErrorCatalog } from '@app/envelope';

/** Which envelope the service renders (see @app/envelope); the document describes exactly that one. */
export type ApiEnvelopeKind = 'voucher' | 'bot';

/** Bearer credentials a service can accept; the values are the security scheme names in the document. */
export const API_SECURITY = {
  /** Account JWT; `@ApiBearerAuth()` without a name refers to it. */
  accountJwt: 'bearer',
  /** Application token `sop_…` of the voucher service's runtime routes. */
  appToken: 'app-token',
  /** Bot token `sbot_…` of the bot methods. */
  botToken: 'bot-token',
  /** The shared INTERNAL_API_TOKEN that platform services present on internal routes. */
  serviceToken: 'service-token',
} as const;

export type ApiSecurityName = (typeof API_SECURITY)[keyof typeof API_SECURITY];

export interface ApiDocsSpec {
  title: string;
  description: string;
  version: string;
  envelope: ApiEnvelopeKind;
  /** The service's error registry: default codes per status, and every documented code must be in it. */
  errors: ErrorCatalog;
  /** Schemes this service accepts; every operation's security must name one of them. */
  security: ApiSecurityName[];
  /**
   * Guards that authenticate a credential, with the scheme each accepts. A route behind one of them is
   * documented with that scheme whatever its `@ApiBearerAuth` says: the guard is what actually runs.
   */
  credentialGuards?: Array<{ guard: Type<unknown>; scheme: ApiSecurityName }>;
  tags?: Array<{ name: string; description: string }>;
  /**
   * Error codes a route can answer because of where it lives rather than what its handler does (a
   * global rate limit, say): called with the method and the path template of every operation.
   */
  routeErrors?: (method: string, path: string) => string[];
}

/** UI at `/docs`, the JSON document at `/docs-json`. */
export const API_DOCS_PATH = 'docs';

const SCHEME_DOCS: Record<ApiSecurityName, { description: string; bearerFormat: string }> = {
  bearer: {
    bearerFormat: 'JWT',
    description:
      'Account JWT (`Authorization: Bearer <jwt>`) issued by the account system: HS256 with the shared secret or ' +
      'RS/ES keys published at ACCOUNT_JWKS_URL. Claims: `sub` (user id), `name`, `roles` (`platform_admin` marks platform staff).',
  },
  'app-token': {
    bearerFormat: 'sop_<base62>',
    description:
      'Application token (`Authorization: Bearer sop_…`), created in the console for one application with a list of ' +
      'permissions. Every runtime call acts on that application only.',
  },
  'bot-token': {
    bearerFormat: 'sbot_<base62>',
    description:
      'Bot token (`Authorization: Bearer sbot_…`), read once after approval and rotated from the developer routes.',
  },
  'service-token': {
    bearerFormat: 'opaque shared secret',
    description:
      'Internal service token (`Authorization: Bearer <INTERNAL_API_TOKEN>`): the secret the platform services share ' +
      'for calls between them. Routes tagged `internal` take only this and are not exposed to integrators.',
  },
};

const ERROR_CODES_KEY = 'x-error-codes';
const PUBLIC_KEY = 'x-public';

export interface ApiErrorDoc {
  status: number;
  code: string;
  /** When the error happens; shown beside the code. */
  when?: string;
}

/**
 * Documents the error responses of a route (or of every route of a controller) with their business
 * codes, e.g. `@ApiErrorResponses([404, 'NOT_FOUND'], { status: 409, code: 'TEMPLATE_NOT_ACTIVE', when: 'template paused' })`.
 * Codes that share a status are listed in one response; the document builder renders them in the
 * service's error envelope with an example per code.
 */
export function ApiErrorResponses(...errors: Array<ApiErrorDoc | [number, string]>): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ApiErrorDoc[]>();
  for (const entry of errors) {
    const doc = Array.isArray(entry) ? { status: entry[0], code: entry[1] } : entry;
    byStatus.set(doc.status, [...(byStatus.get(doc.status) ?? []), doc]);
  }
  return applyDecorators(
    ...[...byStatus.entries()].map(([status, docs]) =>
      ApiResponse({
        status,
        description: docs.map((doc) => (doc.when ? `\`${doc.code}\`: ${doc.when}` : `\`${doc.code}\``)).join('; '),
        [ERROR_CODES_KEY]: [...new Set(docs.map((doc) => doc.code))],
      } as never),
    ),
  );
}

/**
 * `ApiErrorResponses` bound to a service's registry: routes name codes only, the status of each comes
 * from the registry, e.g. `@ApiErrors('TEMPLATE_NOT_ACTIVE', { code: 'NOT_FOUND', when: 'no such template' })`.
 */
export function errorResponsesFor<C extends string>(catalog: ErrorCatalog<C>) {
  return (...errors: Array<C | { code: C; when?: string }>): MethodDecorator & ClassDecorator =>
    ApiErrorResponses(
      ...errors.map((entry) => {
        const doc = typeof entry === 'string' ? { code: entry } : entry;
        return { ...doc, status: catalog.statusOf(doc.code) };
      }),
    );
}

/** Marks a route that takes no credential (the document then says `security: []` for it). */
export function ApiPublic(): MethodDecorator & ClassDecorator {
  return ApiExtension(PUBLIC_KEY, true);
}

/** Builds the OpenAPI 3 document of an app from its controllers and DTO decorators. */
export function buildOpenApiDocument(app: INestApplication, spec: ApiDocsSpec): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle(spec.title)
    .setDescription(spec.description)
    .setVersion(spec.version)
    .setLicense('UNLICENSED', 'https://spdx.org/licenses/')
    .addServer('/', 'this deployment');
  for (const name of spec.security) {
    builder.addBearerAuth({ type: 'http', scheme: 'bearer', ...SCHEME_DOCS[name] }, name);
  }
  for (const tag of [...(spec.tags ?? []), OPERATIONS_TAG]) builder.addTag(tag.name, tag.description);
  const document = SwaggerModule.createDocument(app, builder.build(), { operationIdFactory: operationId });
  return finishDocument(document, spec, handlerFacts(app));
}

function operationId(controllerKey: string, methodKey: string): string {
  return `${controllerKey.replace(/Controller$/, '')}_${methodKey}`;
}

interface HandlerFacts {
  /** No guard protects the handler: it takes no credential. */
  unguarded: boolean;
  /** What Nest answers on success: @HttpCode, else 201 for POST and 200 otherwise. */
  status: number;
  /** Controller and handler guards, outermost first. */
  guards: unknown[];
}

/**
 * What the document cannot see from the Swagger decorators alone, keyed by operation id. An unguarded
 * handler is marked public even when the controller forgot `@ApiPublic()`; a guarded handler without
 * `@ApiBearerAuth` stays without security and fails the lint, which is the point.
 */
function handlerFacts(app: INestApplication): Map<string, HandlerFacts> {
  const facts = new Map<string, HandlerFacts>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller?.prototype) continue;
      const classGuards: unknown[] = Reflect.getMetadata(GUARDS_METADATA, controller) ?? [];
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(controller.prototype, key)?.value;
        const method: RequestMethod | undefined =
          typeof handler === 'function' ? Reflect.getMetadata(METHOD_METADATA, handler) : undefined;
        if (method === undefined) continue;
        const guards: unknown[] = Reflect.getMetadata(GUARDS_METADATA, handler) ?? [];
        const declared: number | undefined = Reflect.getMetadata(HTTP_CODE_METADATA, handler);
        facts.set(operationId(controller.name, key), {
          guards: [...classGuards, ...guards],
          unguarded: classGuards.length === 0 && guards.length === 0,
          status: declared ?? (method === RequestMethod.POST ? 201 : 200),
        });
      }
    }
  }
  return facts;
}

/** Builds the document and serves it at `/docs` (UI) and `/docs-json`; call before `app.init()`/`listen()`. */
export function setupOpenApi(app: INestApplication, spec: ApiDocsSpec): OpenAPIObject {
  const document = buildOpenApiDocument(app, spec);
  SwaggerModule.setup(API_DOCS_PATH, app, document, {
    jsonDocumentUrl: `${API_DOCS_PATH}-json`,
    raw: ['json'],
    customSiteTitle: spec.title,
  });
  return document;
}

// ---------------------------------------------------------------------------------------------
// Envelope and error rendering: the controllers return plain data, the envelope's renderer and
// filter wrap it, so the document has to wrap it too or it would describe bodies nobody sends.

const OPERATIONS_TAG = {
  name: 'operations',
  description: 'Health probes and Prometheus metrics; not part of the public API and not enveloped.',
};

const terminusBody = {
  type: 'object',
  description: 'Terminus health report',
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    info: { type: 'object', additionalProperties: true },
    error: { type: 'object', additionalProperties: true },
    details: { type: 'object', additionalProperties: true },
  },
};

/** The platform's own routes answer in the formats probes and Prometheus expect, so they are described here. */
const OPERATIONS_ROUTES: Record<string, Json> = {
  '/health/live': {
    summary: 'Liveness: the process runs, and which release',
    responses: {
      '200': {
        description: 'The process is alive; the release it runs',
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['status', 'version', 'commit'],
              properties: {
                status: { type: 'string', enum: ['ok'] },
                version: {
                  type: 'string',
                  description: 'The release version of this app (each app is versioned on its own)',
                  example: '1.0.0',
                },
                commit: {
                  type: 'string',
                  description: 'The git commit the build was made from (`unknown` when the build could not tell)',
                  example: '2cd3c68e0b1f4f6a9d2c1e8b7a6f5d4c3b2a1908',
                },
              },
            },
          },
        },
      },
    },
  },
  '/health/ready': {
    summary: 'Readiness: warmed up, and PostgreSQL (and Redis in the Redis mode) answer',
    responses: {
      '200': { description: 'Ready to serve', content: { 'application/json': { schema: terminusBody } } },
      '503': {
        description:
          'A dependency is down, or the warm-up after start has not finished (entry `warm_up`); keep the instance out of rotation',
        content: { 'application/json': { schema: terminusBody } },
      },
    },
  },
  '/metrics': {
    summary: 'Prometheus metrics',
    responses: {
      '200': {
        description: 'Prometheus text exposition format',
        content: { 'text/plain': { schema: { type: 'string' } } },
      },
    },
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function envelopeSchemas(kind: ApiEnvelopeKind): Record<string, object> {
  if (kind === 'voucher') {
    return {
      ResponseMeta: {
        type: 'object',
        required: ['requestId', 'timestamp', 'duration'],
        properties: {
          requestId: { type: 'string', description: 'Identifier for troubleshooting (also the X-Request-Id header)' },
          timestamp: { type: 'string', format: 'date-time', description: 'ISO 8601 UTC time of the response' },
          duration: { type: 'string', pattern: '^[0-9]+ms$', example: '12ms' },
        },
      },
      FieldProblem: {
        type: 'object',
        required: ['field', 'problem'],
        properties: { field: { type: 'string', example: 'issue_limit' }, problem: { type: 'string' } },
      },
      SuccessEnvelope: {
        type: 'object',
        description: 'Every voucher-service success: the business payload sits in `data`.',
        required: ['success', 'code', 'message', 'data', 'meta'],
        properties: {
          success: { type: 'boolean', enum: [true] },
          code: { type: 'integer', description: 'Mirrors the HTTP status', example: 200 },
          message: { type: 'string', example: 'OK' },
          data: { description: 'The business payload; null when the operation returns none' },
          meta: ref('ResponseMeta'),
        },
      },
      ErrorEnvelope: {
        type: 'object',
        description: 'Every voucher-service failure: `error.code` is the business code to branch on.',
        required: ['success', 'code', 'message', 'error', 'meta'],
        properties: {
          success: { type: 'boolean', enum: [false] },
          code: { type: 'integer', description: 'Mirrors the HTTP status', example: 404 },
          message: { type: 'string' },
          error: {
            type: 'object',
            required: ['code'],
            properties: {
              code: { type: 'string', example: 'NOT_FOUND' },
              details: { type: 'array', items: ref('FieldProblem') },
            },
          },
          meta: ref('ResponseMeta'),
        },
      },
    };
  }
  return {
    SuccessEnvelope: {
      type: 'object',
      description: 'Every bot-service success: the payload sits in `data`.',
      required: ['success', 'data'],
      properties: {
        success: { type: 'boolean', enum: [true] },
        data: { description: 'The payload; null when the operation returns none' },
      },
    },
    ErrorEnvelope: {
      type: 'object',
      description: 'Every bot-service failure: `code` is the business code to branch on.',
      required: ['success', 'code', 'message'],
      properties: {
        success: { type: 'boolean', enum: [false] },
        code: { type: 'string', example: 'NOT_FOUND' },
        message: { type: 'string' },
      },
    },
  };
}

function errorExample(kind: ApiEnvelopeKind, status: number, code: string): object {
  const message = `${code.toLowerCase().replace(/_/g, ' ')}`;
  if (kind === 'bot') return { success: false, code, message };
  return {
    success: false,
    code: status,
    message,
    error: { code },
    meta: { requestId: '5f0c1a8e-7d1b-4c1e-9a57-3c2b1f0e9d42', timestamp: '2026-01-01T00:00:00.000Z', duration: '3ms' },
  };
}

function errorContent(kind: ApiEnvelopeKind, status: number, codes: string[]): object {
  const codeSchema = { type: 'string', enum: codes };
  const narrowing =
    kind === 'voucher'
      ? { type: 'object', properties: { error: { type: 'object', properties: { code: codeSchema } } } }
      : { type: 'object', properties: { code: codeSchema } };
  return {
    'application/json': {
      schema: { allOf: [ref('ErrorEnvelope'), narrowing] },
      examples: Object.fromEntries(codes.map((code) => [code, { value: errorExample(kind, status, code) }])),
    },
  };
}

type Json = Record<string, any>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A success documented with only non-JSON media (file bytes) is sent as is, outside the envelope. */
function isRawBody(response: Json): boolean {
  const types = Object.keys(response.content ?? {});
  return types.length > 0 && !types.includes('application/json');
}

function wrapSuccess(response: Json): void {
  const media = response.content?.['application/json'];
  const data = media?.schema;
  response.content = {
    'application/json': {
      schema: data
        ? { allOf: [ref('SuccessEnvelope'), { type: 'object', required: ['data'], properties: { data } }] }
        : ref('SuccessEnvelope'),
      ...(media?.example !== undefined ? { example: media.example } : {}),
      ...(media?.examples !== undefined ? { examples: media.examples } : {}),
    },
  };
  if (!response.description) response.description = 'Success';
}

function schemesOf(spec: ApiDocsSpec, guards: unknown[]): ApiSecurityName[] {
  const schemes = guards.flatMap((guard) =>
    (spec.credentialGuards ?? [])
      .filter((entry) => guard === entry.guard || (guard as object)?.constructor === entry.guard)
      .map((entry) => entry.scheme),
  );
  return [...new Set(schemes)];
}

const STATE_CHANGING = new Set(['post', 'put', 'patch', 'delete']);

function finishOperation(
  spec: ApiDocsSpec,
  method: string,
  path: string,
  operation: Json,
  facts: HandlerFacts | undefined,
): void {
  const kind = spec.envelope;
  const isApi = path.startsWith('/api/');
  const schemes = schemesOf(spec, facts?.guards ?? []);
  if (schemes.length > 0) operation.security = schemes.map((scheme) => ({ [scheme]: [] }));
  if (operation[PUBLIC_KEY] || !isApi || (!operation.security && facts?.unguarded)) {
    operation.security = [];
    delete operation[PUBLIC_KEY];
  }
  if (!isApi) {
    operation.tags = [OPERATIONS_TAG.name];
    Object.assign(operation, OPERATIONS_ROUTES[path] ?? {});
    for (const response of Object.values<Json>(operation.responses ?? {})) {
      if (!response.description) response.description = 'See the operations guide';
    }
    return;
  }
  // Swagger drops its default success response once any @ApiResponse is declared (e.g. only errors).
  if (facts && !Object.keys(operation.responses ?? {}).some((status) => /^2/.test(status))) {
    operation.responses = { [String(facts.status)]: { description: 'Success' }, ...operation.responses };
  }
  const responses: Json = (operation.responses ??= {});
  const hasInput = Boolean(operation.requestBody) || (operation.parameters ?? []).length > 0;
  if (hasInput && !responses['400'])
    responses['400'] = { description: 'Invalid input', [ERROR_CODES_KEY]: [spec.errors.defaultCodeFor(400)] };
  if (STATE_CHANGING.has(method) && !responses['415']) {
    responses['415'] = {
      description: 'A Content-Type other than application/json (refused even with an empty body)',
      [ERROR_CODES_KEY]: [spec.errors.defaultCodeFor(415)],
    };
  }
  if (!responses['500']) {
    responses['500'] = {
      description: 'Unexpected failure; safe to retry (with the same Idempotency-Key where the operation takes one)',
      [ERROR_CODES_KEY]: ['INTERNAL_ERROR'],
    };
  }
  // Any operation that reaches the database answers 503 while it cannot (the envelope filter's mapping).
  const unavailable = (responses['503'] ??= {
    description: 'The service cannot reach its database for the moment; retry after Retry-After seconds',
    [ERROR_CODES_KEY]: [],
  });
  unavailable[ERROR_CODES_KEY] ??= [spec.errors.defaultCodeFor(503)];
  if (!unavailable[ERROR_CODES_KEY].includes('SERVICE_UNAVAILABLE'))
    unavailable[ERROR_CODES_KEY].push('SERVICE_UNAVAILABLE');
  if ((operation.security ?? []).length > 0 && !responses['401']) {
    responses['401'] = { description: 'Missing, invalid or expired credential', [ERROR_CODES_KEY]: ['UNAUTHORIZED'] };
  }
  for (const [status, response] of Object.entries<Json>(responses)) {
    const numeric = Number(status);
    if (numeric === 204) {
      delete response.content;
      if (!response.description) response.description = 'Success, no body';
    } else if (numeric >= 200 && numeric < 300 && !isRawBody(response)) {
      wrapSuccess(response);
    } else if (numeric >= 400) {
      const codes: string[] = response[ERROR_CODES_KEY] ?? [spec.errors.defaultCodeFor(numeric)];
      assertRegistered(spec.errors, numeric, codes, path);
      response[ERROR_CODES_KEY] = codes;
      response.content = errorContent(kind, numeric, codes);
      if (!response.description) response.description = codes.map((code) => `\`${code}\``).join('; ');
    }
  }
}

function addRouteErrors(spec: ApiDocsSpec, method: string, path: string, operation: Json): void {
  for (const code of spec.routeErrors?.(method, path) ?? []) {
    const status = String(spec.errors.statusOf(code));
    const response: Json = ((operation.responses ??= {})[status] ??= { [ERROR_CODES_KEY]: [] });
    const codes: string[] = (response[ERROR_CODES_KEY] ??= []);
    if (codes.includes(code)) continue;
    codes.push(code);
    if (response.description) response.description = `${response.description}; \`${code}\``;
  }
}

/** Applies the envelope, default errors and security conventions to every operation. */
function finishDocument(document: OpenAPIObject, spec: ApiDocsSpec, facts: Map<string, HandlerFacts>): OpenAPIObject {
  const kind = spec.envelope;
  document.components = document.components ?? {};
  document.components.schemas = { ...envelopeSchemas(kind), ...(document.components.schemas ?? {}) };
  const statusesByCode = new Map<string, Set<number>>();
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      addRouteErrors(spec, method, path, operation);
      finishOperation(spec, method, path, operation, facts.get(operation.operationId));
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        for (const code of response[ERROR_CODES_KEY] ?? []) {
          statusesByCode.set(code, (statusesByCode.get(code) ?? new Set()).add(Number(status)));
        }
      }
    }
  }
  const codes = [...statusesByCode.keys()].sort();
  (document as Json)[ERROR_CODES_KEY] = codes;
  // Integrators branch on these codes; the UI shows the description, not the x- extension.
  const field = kind === 'voucher' ? '`error.code`' : '`code`';
  const rows = codes.map((code) => `| \`${code}\` | ${[...statusesByCode.get(code)!].sort().join(', ')} |`);
  document.info.description = [
    document.info.description,
    `## Error codes\n\nEvery failure names one of these in ${field}; the operations list which they can return.`,
    ['| code | HTTP status |', '|---|---|', ...rows].join('\n'),
  ].join('\n\n');
  return document;
}

/** A documented code must exist in the service's registry with the status it is documented under. */
function assertRegistered(errors: ErrorCatalog, status: number, codes: string[], path: string): void {
  for (const code of codes) {
    if (!errors.has(code)) throw new Error(`${path}: error code ${code} is not in the service's error registry`);
    if (errors.statusOf(code) !== status) {
      throw new Error(
        `${path}: error code ${code} is registered with ${errors.statusOf(code)}, documented as ${status}`,
      );
    }
  }
}
