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
}

/** A use outside the table's owner that is allowed, and why. */
export interface AllowedUse {
  at: string;
  tables: readonly string[];
  reason: string;
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

const SQL_STATEMENT = /\b(?:SELECT|INSERT|UPDATE|DELETE|WITH)\b/;
const TABLE_AFTER_KEYWORD = /\b(?:FROM|JOIN|INTO|UPDATE)\s+([a-z_][a-z0-9_]*)/g;

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
    const add = (node: ts.Node, table: string, via: TableUse['via']) => {
      const at = `${source.path}#${declarationOf(node)}`;
      if (!uses.some((use) => use.at === at && use.table === table && use.via === via)) {
        uses.push({ at, path: source.path, table, via });
      }
    };
    const visit = (node: ts.Node): void => {
      const sql = literalText(node);
      if (sql !== undefined && SQL_STATEMENT.test(sql)) {
        for (const [, name] of sql.matchAll(TABLE_AFTER_KEYWORD)) if (tables.has(name)) add(node, name, 'sql');
      }
      if (ts.isCallExpression(node) && ENTITY_CALLS.has(calleeName(node.expression) ?? '')) {
        const first = node.arguments[0];
        const table = first && ts.isIdentifier(first) ? entities.get(first.text) : undefined;
        if (table) add(node, table, 'typeorm');
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
    return uses;
  });
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
  const allows = (entry: AllowedUse, use: TableUse) => entry.at === use.at && entry.tables.includes(use.table);
  const problems = foreign
    .filter((use) => !ownership.allowed.some((entry) => allows(entry, use)))
    .map((use) => {
      const owner = ownership.owners[use.table];
      return owner === undefined
        ? `${use.at}: table ${use.table} has no owner`
        : `${use.at}: ${use.via} on ${use.table}, which ${owner} owns`;
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
