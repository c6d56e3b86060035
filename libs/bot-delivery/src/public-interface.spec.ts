import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import * as publicInterface from './index';

/*
 * The delivery domain has one owner: apps call DeliveryDomain, never a store, and splice SQL of the
 * delivery tables only where a statement must stay one statement with a table of their own. These
 * checks pin that on what the library exports and on what the apps import from it.
 */

const ROOT = resolve(__dirname, '../../..');

/** The SQL fragment builders the library exports, and the only app files that may splice each one. */
const FRAGMENT_USERS: Record<string, string[]> = {
  // A message is written with its Updates and their deliveries in one statement (the hot path); the
  // dispatcher's delivery-store test writes a gated outbox with it too.
  withOutboxWritten: [
    'apps/bot-api/src/messages/messages.store.ts',
    'apps/bot-dispatcher/test/delivery-store.e2e-spec.ts',
  ],
  // A redrive job takes its dead letters in the statement that counts them into the job.
  redrivableDeadLetters: ['apps/bot-api/src/staff-deliveries/redrive-jobs.store.ts'],
  autoRedrivableDeadLetters: ['apps/bot-api/src/staff-deliveries/redrive-jobs.store.ts'],
  // "A bot is available" is one rule, in the statements that pick the bots of a chat.
  botAvailable: ['apps/bot-api/src/bots/bots.store.ts', 'apps/bot-api/src/chats/chats.store.ts'],
};

/** Text that reads as SQL: a statement, a relation (`… JOIN …`) or a column list (`w.update_seq, …`). */
const SQL = /\b(SELECT|INSERT INTO|UPDATE \w+|DELETE FROM|JOIN)\b|^\w+\.\w+,/;

/** A function that builds a typed statement or a part of one (Kysely, or its `sql` template). */
const BUILDER = /\b(selectFrom|insertInto|updateTable|deleteFrom|sql\.raw)\(|\.with\(/;

/**
 * A function is a fragment builder by its name (`…Sql`), by the SQL in its own text or by the
 * statement builder it calls; a named statement is an object with SQL text.
 */
const isSql = (name: string, value: unknown): boolean =>
  (typeof value === 'function' && (/Sql$/.test(name) || SQL.test(String(value)) || BUILDER.test(String(value)))) ||
  (typeof value === 'string' && SQL.test(value)) ||
  (typeof value === 'object' && value !== null && SQL.test(String((value as { text?: unknown }).text ?? '')));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

/** Each name an app file imports from @app/bot-delivery, with the file. */
function importsOfTheLibrary(): Array<{ file: string; name: string }> {
  return sourceFiles(join(ROOT, 'apps')).flatMap((path) => {
    const file = relative(ROOT, path).split(sep).join('/');
    const text = readFileSync(path, 'utf8');
    return [...text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'@app\/bot-delivery'/g)].flatMap((m) =>
      m[1]
        .split(',')
        .map((part) =>
          part
            .replace(/^\s*type\s+/, '')
            .split(/\s+as\s+/)[0]
            .trim(),
        )
        .filter((name) => name.length > 0)
        .map((name) => ({ file, name })),
    );
  });
}

describe('the public interface of @app/bot-delivery', () => {
  const exported = Object.entries(publicInterface as Record<string, unknown>);

  it('exports DeliveryDomain and none of the stores behind it', () => {
    const stores = exported
      .filter(([name, value]) => typeof value === 'function' && /(Store|UpdateOutbox)$/.test(name))
      .map(([name]) => name);
    expect(stores).toEqual([]);
    expect(typeof publicInterface.DeliveryDomain).toBe('function');
  });

  it('exports SQL only as the listed fragment builders, no statement of its own tables', () => {
    const sql = exported
      .filter(([name, value]) => isSql(name, value))
      .map(([name]) => name)
      .sort();
    expect(sql).toEqual(Object.keys(FRAGMENT_USERS).sort());
  });

  it('is spliced by the apps only where a statement must stay one with their own table', () => {
    const imports = importsOfTheLibrary();
    expect(imports.length).toBeGreaterThan(20);
    expect(imports.some(({ name }) => name === 'DeliveryDomain')).toBe(true);
    const misplaced = imports
      .filter(({ file, name }) => name in FRAGMENT_USERS && !FRAGMENT_USERS[name].includes(file))
      .map(({ file, name }) => `${file} imports ${name}`);
    expect(misplaced).toEqual([]);
  });
});
