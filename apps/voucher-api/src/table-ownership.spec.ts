import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  codeMapProblems,
  createdTables,
  describeWriters,
  entityTables,
  fragmentUses,
  readSources,
  REPO_ROOT,
  tableUses,
  tableWriters,
} from '@app/testing';

/**
 * One owner per table: all SQL of a table, and all TypeORM use of its entity, sit in one store of
 * the module that owns it; other modules call that store. A statement that must span tables (a hot
 * path's single round trip, or a view that shows names from other tables) is listed below with its
 * reason, so every coupling between modules' tables is written down in one place.
 */
const SRC = __dirname;

/** Each table of the voucher database and the file that owns it (relative to src/). */
const OWNERS: Record<string, string> = {
  users: 'users/users.store.ts',
  applications: 'applications/applications.store.ts',
  app_tokens: 'app-tokens/app-tokens.store.ts',
  authorizations: 'authorizations/authorizations.store.ts',
  templates: 'templates/templates.store.ts',
  template_user_issues: 'templates/templates.store.ts',
  vouchers: 'vouchers/vouchers.store.ts',
  redemptions: 'redemptions/redemptions.store.ts',
  reversals: 'redemptions/redemptions.store.ts',
  allocations: 'allocations/allocations.store.ts',
  sends: 'allocations/sends.store.ts',
  bot_bindings: 'bot-bindings/bot-bindings.store.ts',
  sealed_request_ids: 'sealed-transport/sealed-request-ids.store.ts',
  // Written only through @app/idempotency's store (its claim CTEs are composed into the hot-path statements).
  idempotency_keys: '@app/idempotency/idempotency.store.ts',
};

/** Statements that read another owner's table, by file and table, each with why it may; writes never do. */
const CROSS_TABLE_ALLOWED: Array<{ file: string; table: string; reason: string }> = [
  {
    file: 'app-tokens/app-tokens.store.ts',
    table: 'applications',
    reason: "a runtime call authenticates with one indexed statement: the token and its application's state",
  },
  {
    file: 'vouchers/vouchers.store.ts',
    table: 'templates',
    reason:
      "issue checks the template in the same round trip as the key claim (issue = 6 statements); the holder's " +
      "wallet shows each voucher's template in one paged statement",
  },
  {
    file: 'vouchers/vouchers.store.ts',
    table: 'authorizations',
    reason: 'the recipient rule of an issue (consent, or already a holder) is read in the same round trip',
  },
  {
    file: 'vouchers/vouchers.store.ts',
    table: 'applications',
    reason: "the holder's wallet shows each voucher's application name in one paged statement",
  },
  {
    file: 'authorizations/authorizations.store.ts',
    table: 'applications',
    reason: "the holder's consents are shown with each application's name",
  },
  {
    file: 'allocations/allocations.store.ts',
    table: 'applications',
    reason: "the backpack shows each allocation's application name",
  },
  {
    file: 'allocations/allocations.store.ts',
    table: 'templates',
    reason: "the backpack shows each allocation's template",
  },
  { file: 'allocations/sends.store.ts', table: 'users', reason: "the inbox shows each send's sender name" },
  {
    file: 'allocations/sends.store.ts',
    table: 'allocations',
    reason: "the inbox shows each send's application and template, which its allocation names",
  },
  { file: 'allocations/sends.store.ts', table: 'applications', reason: "the inbox shows each send's application" },
  { file: 'allocations/sends.store.ts', table: 'templates', reason: "the inbox shows each send's template" },
];

function typescriptFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return typescriptFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

const files = typescriptFiles(SRC)
  .filter((file) => !file.endsWith('.spec.ts') && !relative(SRC, file).startsWith('database/'))
  .map((file) => relative(SRC, file));

/** Comments may name tables in prose; only code counts. */
function code(file: string): string {
  return readFileSync(join(SRC, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
}

/**
 * Tables a file names in SQL: after FROM, JOIN, INTO, UPDATE or DELETE FROM, or first in a Kysely
 * builder call (`selectFrom('vouchers as v')`, `innerJoin('templates as t', …)`, `updateTable(…)`).
 */
function tablesInSql(file: string): Set<string> {
  const text = code(file);
  const names = [
    ...text.matchAll(/\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_]+)\b/g),
    ...text.matchAll(/\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin)\(\s*\[?\s*'([a-z_]+)\b/g),
  ].map((match) => match[1]);
  return new Set(names.filter((name) => name in OWNERS));
}

function migratedTables(): string[] {
  const migrations = [
    ...typescriptFiles(join(SRC, 'database', 'migrations')),
    resolve(SRC, '../../../libs/idempotency/src/idempotency.migration.ts'),
  ];
  return migrations.flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/CREATE TABLE (\w+)/g)].map((match) => match[1]),
  );
}

/** Entity class → its table, from the `@Entity({ name })` of every entity file. */
function entities(): Map<string, { table: string; file: string }> {
  const found = new Map<string, { table: string; file: string }>();
  for (const file of files.filter((name) => name.endsWith('.entity.ts'))) {
    const text = code(file);
    const table = /@Entity\(\{ name: '(\w+)' \}\)/.exec(text)?.[1];
    const className = /@Entity\([^)]*\)\s*export class (\w+)/.exec(text)?.[1];
    if (table && className) found.set(className, { table, file });
  }
  return found;
}

/** Classes a file imports as values (type-only imports excluded), with the file each comes from. */
function valueImports(file: string): Array<{ name: string; from: string }> {
  const text = code(file);
  return [...text.matchAll(/^import (?!type )\{([^}]*)\} from '(\.[^']+)';/gm)].flatMap((match) => {
    const from = relative(SRC, resolve(SRC, dirname(file), match[2])) + '.ts';
    return match[1]
      .split(',')
      .map((specifier) => specifier.trim())
      .filter((specifier) => specifier && !specifier.startsWith('type '))
      .map((specifier) => ({ name: specifier.split(/\s+as\s+/)[0], from }));
  });
}

const allowed = (file: string, table: string) =>
  OWNERS[table] === file || CROSS_TABLE_ALLOWED.some((entry) => entry.file === file && entry.table === table);

describe('voucher-api table ownership', () => {
  it('names an owner for every table the migrations create, and every owner file exists', () => {
    const tables = migratedTables();
    expect(tables.length).toBeGreaterThan(10);
    expect(tables.filter((table) => !(table in OWNERS))).toEqual([]);
    const missing = Object.values(OWNERS).filter((file) => !file.startsWith('@') && !existsSync(join(SRC, file)));
    expect(missing).toEqual([]);
  });

  it('keeps every table out of the SQL of files that do not own it, except the listed cross-table statements', () => {
    const offenders = files.flatMap((file) =>
      [...tablesInSql(file)].filter((table) => !allowed(file, table)).map((table) => `${file} → ${table}`),
    );
    expect(offenders).toEqual([]);
  });

  it('lists no cross-table statement that no longer exists', () => {
    const stale = CROSS_TABLE_ALLOWED.filter((entry) => !tablesInSql(entry.file).has(entry.table));
    expect(stale).toEqual([]);
  });

  it('uses each entity with TypeORM only in its owning store (and registers it only in that module)', () => {
    const known = entities();
    expect(known.size).toBeGreaterThan(10);
    const offenders = files.flatMap((file) =>
      valueImports(file)
        .filter(({ name, from }) => known.get(name)?.file === from)
        .filter(({ name }) => {
          const owner = OWNERS[known.get(name)!.table];
          const ownerModule = dirname(owner);
          return file !== owner && !(file.endsWith('.module.ts') && dirname(file) === ownerModule);
        })
        .map(({ name }) => `${file} uses ${name}`),
    );
    expect(offenders).toEqual([]);
  });

  it('reaches repositories only through the stores: no injected or looked-up TypeORM repositories', () => {
    const offenders = files.filter((file) => /InjectRepository\(|getRepository\(/.test(code(file)));
    expect(offenders).toEqual([]);
  });

  it('has one writer per table, its owner, also through the fragments spliced into other statements', () => {
    const sources = [
      ...readSources(REPO_ROOT, 'apps/voucher-api/src', (path) => path.includes('/database/')),
      ...readSources(REPO_ROOT, 'libs/idempotency/src', (path) => path.endsWith('.migration.ts')),
    ];
    const migrations = [
      ...readSources(REPO_ROOT, 'apps/voucher-api/src/database/migrations'),
      ...readSources(REPO_ROOT, 'libs/idempotency/src', (path) => !path.endsWith('.migration.ts')),
    ];
    const uses = tableUses(sources, createdTables(migrations), entityTables(sources));
    console.info(`voucher database: table <- writing file\n${describeWriters(uses, fragmentUses(sources, uses))}`);
    const ownerPath = (table: string) =>
      OWNERS[table].startsWith('@app/')
        ? OWNERS[table].replace(/^@app\/([^/]+)\//, 'libs/$1/src/')
        : `apps/voucher-api/src/${OWNERS[table]}`;
    const writers = [...tableWriters(uses)].map(([table, files]) => ({ table, writers: files }));
    expect(writers.length).toBeGreaterThan(10);
    expect(writers).toEqual(writers.map(({ table }) => ({ table, writers: [ownerPath(table)] })));
  });

  it('is what docs/code-map.md says: every folder, and each table under the folder that writes it', () => {
    const owners = Object.fromEntries(
      Object.entries(OWNERS).map(([table, owner]) => [table, owner.startsWith('@app/') ? null : owner]),
    );
    expect(codeMapProblems(REPO_ROOT, 'voucher-api', owners)).toEqual([]);
  });
});
