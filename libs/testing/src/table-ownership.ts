import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** A source file by its path from the repository root (with `/`), and its text. */
export interface Source {
  path: string;
  text: string;
}

/** One table named by one statement or one TypeORM call. */
export interface TableUse {
  /** `<path>#<declaration>`: the file and the class member, function or module constant the use sits in. */
  at: string;
  path: string;
  table: string;
  via: 'sql' | 'typeorm';
  /** Whether the use may change rows: INSERT, UPDATE or DELETE on the table, or a TypeORM write. */
  writes: boolean;
}

/**
 * A statement that splices another declaration's SQL into its own (`${insertDeliveriesSql('x')}`):
 * the tables that fragment uses are used by the statement too, under the fragment's owner.
 */
export interface FragmentUse {
  /** Where the statement is: `<path>#<declaration>`. */
  at: string;
  /** The spliced fragment: `<path>#<declaration>`. */
  fragment: string;
  table: string;
  writes: boolean;
}

/** A use outside the table's owner that is allowed, and why: a read, unless `writes` says otherwise. */
export interface AllowedUse {
  at: string;
  tables: readonly string[];
  reason: string;
  /** The statement writes these tables too: only what the table's owner cannot do for it. */
  writes?: boolean;
}

export interface Ownership {
  /** Table → its owner: one file, or a folder (ending in `/`) whose files share it. */
  owners: Readonly<Record<string, string>>;
  allowed: readonly AllowedUse[];
}

/** TypeORM calls that take an entity class first and read or write its table. */
const ENTITY_CALLS = new Set([
  'getRepository',
  'InjectRepository',
  'createQueryBuilder',
  'create',
  'save',
  'insert',
  'update',
  'upsert',
  'delete',
  'remove',
  'find',
  'findBy',
  'findOne',
  'findOneBy',
  'findOneOrFail',
  'findOneByOrFail',
  'findAndCount',
  'findAndCountBy',
  'count',
  'countBy',
  'exists',
  'existsBy',
  'increment',
  'decrement',
]);

/** TypeORM calls that change rows; the others read. */
const WRITING_CALLS = new Set(['save', 'insert', 'update', 'upsert', 'delete', 'remove', 'increment', 'decrement']);

/** Kysely builder calls that name a table first (`'vouchers'`, `'vouchers as v'`, or a list of them); the first four write it. */
const KYSELY_WRITES = new Set(['insertInto', 'updateTable', 'deleteFrom', 'mergeInto']);
const KYSELY_CALLS = new Set([...KYSELY_WRITES, 'selectFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin']);

/** The tables a Kysely call's first argument names: a string literal, or an array literal of them. */
function kyselyTables(call: ts.CallExpression): string[] {
  const first = call.arguments[0];
  const names = !first
    ? []
    : ts.isStringLiteralLike(first)
      ? [first.text]
      : ts.isArrayLiteralExpression(first)
        ? first.elements.filter(ts.isStringLiteralLike).map((element) => element.text)
        : [];
  return names.map((name) => name.split(/\s+/)[0]);
}

const SQL_STATEMENT = /\b(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/;
/** `INSERT INTO t`, `UPDATE t`, `DELETE FROM t` write t; `FROM t`, `JOIN t` read it. */
const TABLE_AFTER_KEYWORD = /\b(INSERT\s+INTO|DELETE\s+FROM|FROM|JOIN|INTO|UPDATE)\s+([a-z_][a-z0-9_]*)/g;

/** The `.ts` files below `dir` (relative to `root`), leaving out tests and whatever `skip` matches. */
export function readSources(root: string, dir: string, skip: (path: string) => boolean = () => false): Source[] {
  const walk = (absolute: string): string[] =>
    readdirSync(absolute).flatMap((name) => {
      const path = join(absolute, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  return walk(join(root, dir))
    .map((absolute) => relative(root, absolute).split(sep).join('/'))
    .filter((path) => path.endsWith('.ts') && !/\.(e2e-)?spec\.ts$/.test(path) && !skip(path))
    .map((path) => ({ path, text: readFileSync(join(root, path), 'utf8') }));
}

/** The tables that `CREATE [UNLOGGED] TABLE` statements in these sources (migrations) create. */
export function createdTables(sources: readonly Source[]): Set<string> {
  return new Set(
    sources.flatMap((source) => [...source.text.matchAll(/CREATE (?:UNLOGGED )?TABLE (\w+)/g)].map((m) => m[1])),
  );
}

/** Entity class → its table, from `@Entity({ name: '…' })` or `@Entity('…')` followed by the class. */
export function entityTables(sources: readonly Source[]): Map<string, string> {
  const pattern = /@Entity\(\s*(?:\{\s*name:\s*)?'(\w+)'[^)]*\)\s*export class (\w+)/g;
  return new Map(sources.flatMap((source) => [...source.text.matchAll(pattern)].map((m) => [m[2], m[1]] as const)));
}

/** Every table the SQL text and the TypeORM entity calls of these sources name, with where they do it. */
export function tableUses(
  sources: readonly Source[],
  tables: ReadonlySet<string>,
  entities: ReadonlyMap<string, string>,
): TableUse[] {
  return sources.flatMap((source) => {
    const file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.ES2022, true);
    const uses: TableUse[] = [];
    const add = (node: ts.Node, table: string, via: TableUse['via'], writes: boolean) => {
      const at = `${source.path}#${declarationOf(node)}`;
      const known = uses.find((use) => use.at === at && use.table === table && use.via === via);
      if (known) known.writes ||= writes;
      else uses.push({ at, path: source.path, table, via, writes });
    };
    const visit = (node: ts.Node): void => {
      const sql = literalText(node);
      if (sql !== undefined && SQL_STATEMENT.test(sql)) {
        for (const [, keyword, name] of sql.matchAll(TABLE_AFTER_KEYWORD)) {
          if (tables.has(name)) add(node, name, 'sql', /^(?:INSERT|DELETE|UPDATE)/.test(keyword));
        }
      }
      const callee = ts.isCallExpression(node) ? (calleeName(node.expression) ?? '') : '';
      if (ts.isCallExpression(node) && KYSELY_CALLS.has(callee)) {
        for (const name of kyselyTables(node)) if (tables.has(name)) add(node, name, 'sql', KYSELY_WRITES.has(callee));
      }
      if (ts.isCallExpression(node) && ENTITY_CALLS.has(callee)) {
        const first = node.arguments[0];
        const table = first && ts.isIdentifier(first) ? entities.get(first.text) : undefined;
        if (table) add(node, table, 'typeorm', typeormWrites(node));
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    return uses;
  });
}

/**
 * Whether a TypeORM call on an entity may change rows: a writing call itself (`manager.save(Entity, …)`),
 * a repository whose next call writes (`getRepository(Entity).save(…)`), or a repository or query
 * builder kept for later (`@InjectRepository(Entity)`, `createQueryBuilder(Entity)`), which may.
 */
function typeormWrites(call: ts.CallExpression): boolean {
  const name = calleeName(call.expression) ?? '';
  if (WRITING_CALLS.has(name)) return true;
  if (name !== 'getRepository')
    return !ENTITY_CALLS.has(name) || name === 'InjectRepository' || name === 'createQueryBuilder';
  const parent = call.parent;
  if (ts.isPropertyAccessExpression(parent) && ts.isCallExpression(parent.parent)) {
    return WRITING_CALLS.has(parent.name.text) || parent.name.text === 'createQueryBuilder';
  }
  return true;
}

/**
 * The fragments each statement splices in (`${name}` or `${name(…)}` holes naming a module-level
 * constant or function of these sources that holds SQL), followed through fragments that splice
 * others: every table a statement reaches that way, with the fragment whose text names it. A name is
 * resolved in its own file first, then by the one module-level declaration of that name.
 */
export function fragmentUses(sources: readonly Source[], uses: readonly TableUse[]): FragmentUse[] {
  const fragmentsOf = new Map<string, string[]>();
  const declarations = new Map<string, string[]>();
  const holes: Array<{ at: string; path: string; name: string }> = [];
  for (const source of sources) {
    const file = ts.createSourceFile(source.path, source.text, ts.ScriptTarget.ES2022, true);
    for (const statement of file.statements) {
      const names = ts.isFunctionDeclaration(statement)
        ? [statement.name?.text]
        : ts.isVariableStatement(statement)
          ? statement.declarationList.declarations.map((d) => (ts.isIdentifier(d.name) ? d.name.text : undefined))
          : [];
      for (const name of names) if (name) declarations.set(name, [...(declarations.get(name) ?? []), source.path]);
    }
    const visit = (node: ts.Node): void => {
      if (ts.isTemplateExpression(node)) {
        for (const span of node.templateSpans) {
          const hole = ts.isCallExpression(span.expression) ? span.expression.expression : span.expression;
          if (ts.isIdentifier(hole))
            holes.push({ at: `${source.path}#${declarationOf(node)}`, path: source.path, name: hole.text });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  const resolve = (path: string, name: string): string | undefined => {
    const found = declarations.get(name) ?? [];
    const where = found.includes(path) ? path : found.length === 1 ? found[0] : undefined;
    return where && `${where}#${name}`;
  };
  for (const hole of holes) {
    const fragment = resolve(hole.path, hole.name);
    // Kept even when the fragment names no table itself: it may splice fragments that do (a composition
    // of two tables' fragments), and the walk below follows it to them.
    if (fragment && fragment !== hole.at) {
      fragmentsOf.set(hole.at, [...new Set([...(fragmentsOf.get(hole.at) ?? []), fragment])]);
    }
  }
  const reached: FragmentUse[] = [];
  for (const at of fragmentsOf.keys()) {
    const seen = new Set<string>();
    const walk = (fragment: string): void => {
      if (seen.has(fragment)) return;
      seen.add(fragment);
      for (const use of uses.filter((u) => u.at === fragment)) {
        if (!reached.some((r) => r.at === at && r.fragment === fragment && r.table === use.table)) {
          reached.push({ at, fragment, table: use.table, writes: use.writes });
        }
      }
      for (const next of fragmentsOf.get(fragment) ?? []) walk(next);
    };
    for (const fragment of fragmentsOf.get(at) ?? []) walk(fragment);
  }
  return reached;
}

/**
 * Table → the files whose own text writes it (a statement that splices a fragment writes through the
 * fragment's file, which is where that text lives).
 */
export function tableWriters(uses: readonly TableUse[]): Map<string, string[]> {
  const writers = new Map<string, string[]>();
  for (const use of uses.filter((u) => u.writes)) {
    const files = writers.get(use.table) ?? [];
    if (!files.includes(use.path)) writers.set(use.table, [...files, use.path].sort());
  }
  return new Map([...writers].sort(([a], [b]) => a.localeCompare(b)));
}

/** The writer map as lines for a test's output: `table ← file (spliced into: statement, …)`. */
export function describeWriters(uses: readonly TableUse[], fragments: readonly FragmentUse[]): string {
  return [...tableWriters(uses)]
    .map(([table, files]) => {
      const spliced = [...new Set(fragments.filter((f) => f.writes && f.table === table).map((f) => f.at))].sort();
      return `${table} <- ${files.join(', ')}${spliced.length > 0 ? ` (spliced into ${spliced.join(', ')})` : ''}`;
    })
    .join('\n');
}

/**
 * The uses of a table outside its owner that no allowance covers, tables used without an owner, and
 * allowances that cover nothing any more (a stale allowance would let a later statement in).
 */
export function ownershipProblems(uses: readonly TableUse[], ownership: Ownership): string[] {
  const foreign = uses.filter((use) => {
    const owner = ownership.owners[use.table];
    return owner === undefined || !(use.path === owner || (owner.endsWith('/') && use.path.startsWith(owner)));
  });
  const allows = (entry: AllowedUse, use: TableUse) =>
    entry.at === use.at && entry.tables.includes(use.table) && (!use.writes || entry.writes === true);
  const problems = foreign
    .filter((use) => !ownership.allowed.some((entry) => allows(entry, use)))
    .map((use) => {
      const owner = ownership.owners[use.table];
      return owner === undefined
        ? `${use.at}: table ${use.table} has no owner`
        : `${use.at}: ${use.via} ${use.writes ? 'writes' : 'on'} ${use.table}, which ${owner} owns`;
    });
  const stale = ownership.allowed
    .filter((entry) => entry.tables.some((table) => !foreign.some((use) => allows({ ...entry, tables: [table] }, use))))
    .map((entry) => `allowed ${entry.at} on ${entry.tables.join(', ')}: no statement there needs all of that any more`);
  return [...problems, ...stale];
}

/** The text of a string or template literal, with `${…}` holes as blanks; undefined for any other node. */
function literalText(node: ts.Node): string | undefined {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ');
  }
  return undefined;
}

function calleeName(callee: ts.Expression): string | undefined {
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) return callee.name.text;
  return undefined;
}

/** `Class.member`, `function` or `CONSTANT`: the named declarations around a node, outermost first. */
function declarationOf(node: ts.Node): string {
  const names: string[] = [];
  for (let current: ts.Node | undefined = node; current; current = current.parent) {
    if (
      (ts.isClassDeclaration(current) ||
        ts.isFunctionDeclaration(current) ||
        ts.isMethodDeclaration(current) ||
        ts.isPropertyDeclaration(current)) &&
      current.name
    ) {
      names.push(current.name.getText());
    } else if (ts.isConstructorDeclaration(current)) {
      names.push('constructor');
    } else if (ts.isVariableDeclaration(current) && ts.isSourceFile(current.parent.parent.parent)) {
      names.push(current.name.getText());
    }
  }
  return names.reverse().join('.') || '(module)';
}
