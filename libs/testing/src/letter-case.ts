import type { INestApplication } from '@nestjs/common';
import { buildOpenApiDocument, requestLogRecord, type ApiDocsSpec } from '@app/platform';
import request from 'supertest';

type Operation = { security?: Array<Record<string, unknown>> };

export interface LetterCaseWalk {
  spec: ApiDocsSpec;
  /** A concrete value for a path parameter, by its name. */
  param: (name: string) => string;
  /** The credential header a route's security scheme takes, so that a matched spelling would be limited and audited. */
  credentials: (scheme: string | undefined) => Record<string, string>;
  /** Secrets that may stand in a path (bot tokens); no spelling's log record may contain one. */
  secrets: string[];
  /** Entries the app's audit logs hold now; a spelling must add exactly what its lower-case spelling adds. */
  audited: () => Promise<number>;
}

export interface CaseProbe {
  method: string;
  template: string;
  lower: string;
  spelled: string;
  scheme: string | undefined;
}

/** Each other-case spelling of a documented path: all static letters upper, alternating, and only the last word changed. */
export function otherSpellings(
  template: string,
  param: (name: string) => string,
): { lower: string; spellings: string[] } {
  const pieces = template.split(/(\{[^}]+\})/);
  const fill = (change: (piece: string, index: number) => string) =>
    pieces.map((piece, index) => (piece.startsWith('{') ? param(piece.slice(1, -1)) : change(piece, index))).join('');
  const lastStatic = Math.max(
    ...pieces.map((piece, index) => (!piece.startsWith('{') && /[a-z]/i.test(piece) ? index : -1)),
  );
  const alternateWord = (word: string) =>
    [...word].map((char, at) => (at % 2 === 0 ? char.toUpperCase() : char.toLowerCase())).join('');
  const alternate = (piece: string) => piece.replace(/[a-z]+/gi, alternateWord);
  const lastOnly = (piece: string, index: number) =>
    index === lastStatic ? piece.replace(/[a-z]+(?=[^a-z]*$)/i, alternateWord) : piece;
  const lower = fill((piece) => piece);
  const spellings = [fill((piece) => piece.toUpperCase()), fill(alternate), fill(lastOnly)];
  return { lower, spellings: [...new Set(spellings)].filter((spelled) => spelled !== lower) };
}

/** Every documented operation with each of its other-case spellings. */
export function letterCaseProbes(app: INestApplication, walk: LetterCaseWalk): CaseProbe[] {
  const document = buildOpenApiDocument(app, walk.spec);
  return Object.entries(document.paths).flatMap(([template, item]) =>
    Object.entries(item as Record<string, Operation>)
      .filter(([method]) => ['get', 'put', 'post', 'patch', 'delete'].includes(method))
      .flatMap(([method, operation]) => {
        const scheme = Object.keys(operation.security?.[0] ?? {})[0];
        const { lower, spellings } = otherSpellings(template, walk.param);
        return spellings.map((spelled) => ({ method, template, lower, spelled, scheme }));
      }),
  );
}

type Observed = { status: number; limit: string | null; audited: number; unknownRoute: boolean };

async function observe(app: INestApplication, walk: LetterCaseWalk, method: string, path: string, scheme?: string) {
  const before = await walk.audited();
  const res = await (request(app.getHttpServer()) as unknown as Record<string, (url: string) => request.Test>)
    [method](path)
    .set(walk.credentials(scheme));
  const limit = res.headers['x-ratelimit-limit'];
  // The router's own refusal ("Cannot GET /…"), not a handler's 404 for an id it does not know.
  const unknownRoute = res.status === 404 && /^Cannot [A-Z]+ \//.test(String(res.body?.message ?? ''));
  return {
    status: res.status,
    limit: typeof limit === 'string' ? limit : null,
    audited: (await walk.audited()) - before,
    unknownRoute,
  };
}

/**
 * Calls every spelling and reports each that is neither refused by the router as an unknown route (404) nor treated
 * exactly as its lower-case spelling (the same status, the same rate limit, the same audit entries), and each whose request log record would carry a secret of its path.
 */
export async function letterCaseProblems(app: INestApplication, walk: LetterCaseWalk): Promise<string[]> {
  const problems: string[] = [];
  for (const probe of letterCaseProbes(app, walk)) {
    const label = `${probe.method.toUpperCase()} ${probe.spelled}`;
    const logged = requestLogRecord({ id: 'probe', method: probe.method, url: probe.spelled, headers: {} }).url;
    if (walk.secrets.some((secret) => logged.includes(secret)))
      problems.push(`${label}: its log line carries a secret`);
    const spelled: Observed = await observe(app, walk, probe.method, probe.spelled, probe.scheme);
    if (spelled.unknownRoute) continue;
    const lower: Observed = await observe(app, walk, probe.method, probe.lower, probe.scheme);
    if (JSON.stringify(spelled) !== JSON.stringify(lower)) {
      problems.push(`${label}: ${JSON.stringify(spelled)}, while ${probe.lower} gives ${JSON.stringify(lower)}`);
    }
  }
  return problems;
}
