import type { INestApplication } from '@nestjs/common';
import { ApiDocsSpec, buildOpenApiDocument } from '@app/platform';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { NextFunction, Request, Response } from 'express';
import { appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

type Json = Record<string, any>;

interface Observed {
  method: string;
  path: string;
  status: number;
  contentType: string;
  body: string;
}

/** Schemas the envelope builder writes; they compose with `allOf`, so they stay open to extra fields. */
const ENVELOPE_SCHEMAS = new Set(['SuccessEnvelope', 'ErrorEnvelope', 'ResponseMeta', 'FieldProblem']);

/**
 * Where each test file appends the operations and statuses it saw; `npm run contract:coverage` sums
 * them up. jest.global-setup.js empties it at the start of every run.
 */
export const CONTRACT_COVERAGE_DIR =
  process.env.CONTRACT_COVERAGE_DIR ?? join(tmpdir(), 'open-platform-contract-coverage');

/**
 * Checks every response a test app sends under `/api/` against the app's own OpenAPI document: the
 * route and status must be documented and the JSON body must match the documented schema (objects of
 * the document's DTO classes refuse undocumented fields). Responses are recorded while tests run and
 * checked by `verify()`, which throws one error listing every drift.
 */
export class ContractRecorder {
  private readonly observed: Observed[] = [];

  constructor(private readonly spec: ApiDocsSpec) {}

  /** Install before `app.init()`, ahead of every other middleware. */
  install(app: INestApplication): void {
    app.use((req: Request, res: Response, next: NextFunction) => {
      if (!req.originalUrl.startsWith('/api/')) return next();
      const chunks: Buffer[] = [];
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => Response;
      const keep = (chunk: unknown) => {
        if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
        else if (Buffer.isBuffer(chunk)) chunks.push(chunk);
      };
      res.write = ((chunk: unknown, ...rest: unknown[]) => (keep(chunk), write(chunk, ...rest))) as Response['write'];
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if (chunk !== undefined && typeof chunk !== 'function') keep(chunk);
        this.observed.push({
          method: req.method.toLowerCase(),
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          contentType: String(res.getHeader('content-type') ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        return end(chunk, ...rest);
      }) as Response['end'];
      next();
    });
  }

  /** Throws when any recorded response drifted from the document; records coverage either way. */
  verify(app: INestApplication, service: string): void {
    const { problems, document, covered } = this.check(app);
    writeCoverage(service, document, covered);
    if (problems.length > 0) {
      throw new Error(`${problems.length} response(s) drift from the OpenAPI document:\n- ${problems.join('\n- ')}`);
    }
  }

  /** How each recorded response drifted from the document, once per distinct drift. */
  problems(app: INestApplication): string[] {
    return this.check(app).problems;
  }

  private check(app: INestApplication): { problems: string[]; document: Json; covered: Set<string> } {
    const document = buildOpenApiDocument(app, this.spec) as unknown as Json;
    const validator = new ResponseValidator(document);
    const problems = this.observed.map((response) => validator.problemOf(response)).filter(Boolean) as string[];
    return { problems: [...new Set(problems)], document, covered: validator.covered };
  }
}

class ResponseValidator {
  readonly covered = new Set<string>();
  private readonly ajv: Ajv;
  private readonly routes: Array<{ template: string; pattern: RegExp; params: number }>;
  private readonly compiled = new Map<string, ValidateFunction>();
  private errorEnvelope?: ValidateFunction;

  constructor(private readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    const components = structuredClone(document.components ?? {});
    for (const [name, schema] of Object.entries<Json>(components.schemas ?? {})) {
      if (!ENVELOPE_SCHEMAS.has(name)) closeObjects(schema);
    }
    this.ajv.addSchema({ $id: 'doc', components });
    this.routes = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/}]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  problemOf(response: Observed): string | undefined {
    const label = `${response.method.toUpperCase()} ${response.path} → ${response.status}`;
    const route = this.routes.find((candidate) => candidate.pattern.test(response.path));
    const operation = route && this.document.paths[route.template][response.method];
    if (!route || !operation) {
      // A path or method no operation has is the router's refusal, rendered in the error envelope.
      if (response.status === 404 || response.status === 405) return this.unknownRouteProblem(response, label);
      return `${label}: the route is not documented`;
    }
    const documented = operation.responses?.[String(response.status)] ?? operation.responses?.default;
    if (!documented) return `${label}: status ${response.status} is not documented for ${route.template}`;
    this.covered.add(`${response.method.toUpperCase()} ${route.template} ${response.status}`);
    const media = documented.content?.['application/json'];
    if (!media?.schema) return undefined;
    if (!response.contentType.startsWith('application/json')) {
      return `${label}: documented as application/json, sent ${response.contentType || 'no content type'}`;
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return `${label}: the body is not JSON`;
    }
    const key = `${response.method} ${route.template} ${response.status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(rebase(media.schema));
      this.compiled.set(key, validate);
    }
    if (validate(body)) return undefined;
    return `${label} (${route.template}): ${errorsOf(validate)}`;
  }

  private unknownRouteProblem(response: Observed, label: string): string | undefined {
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return `${label}: an unknown route's refusal is not JSON`;
    }
    this.errorEnvelope ??= this.ajv.compile({ $ref: 'doc#/components/schemas/ErrorEnvelope' });
    if (this.errorEnvelope(body)) return undefined;
    return `${label}: an unknown route's refusal is not in the error envelope: ${errorsOf(this.errorEnvelope)}`;
  }
}

/** The document's `#/components/...` references, resolved against the schema registered as `doc`. */
function rebase(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/'));
}

/** A DTO class documents every field it sends: an object schema with properties takes no others. */
function closeObjects(schema: Json): void {
  if (!schema || typeof schema !== 'object') return;
  if (schema.properties && schema.additionalProperties === undefined && !schema.allOf) {
    schema.additionalProperties = false;
  }
  for (const value of Object.values(schema)) {
    if (value && typeof value === 'object') closeObjects(value as Json);
  }
}

function errorsOf(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message}${extra(error.params)}`)
    .join('; ');
}

function extra(params: Record<string, unknown>): string {
  if ('additionalProperty' in params) return ` (${String(params.additionalProperty)})`;
  if ('allowedValues' in params) return ` (${JSON.stringify(params.allowedValues)})`;
  return '';
}

function writeCoverage(service: string, document: Json, covered: Set<string>): void {
  const operations: string[] = [];
  const responses: string[] = [];
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const [method, operation] of Object.entries<Json>(item)) {
      operations.push(`${method.toUpperCase()} ${path}`);
      for (const status of Object.keys(operation.responses ?? {}))
        responses.push(`${method.toUpperCase()} ${path} ${status}`);
    }
  }
  mkdirSync(CONTRACT_COVERAGE_DIR, { recursive: true });
  appendFileSync(
    join(CONTRACT_COVERAGE_DIR, `${service}.jsonl`),
    `${JSON.stringify({ operations, responses, covered: [...covered] })}\n`,
  );
}
