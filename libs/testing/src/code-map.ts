import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One app's part of docs/code-map.md: folder (with its `/`) → the tables its row says it writes. */
export function codeMapOf(root: string, app: string): Map<string, string[]> {
  const text = readFileSync(join(root, 'docs/code-map.md'), 'utf8');
  const section = text.split(/^## /m).find((part) => part.startsWith(`${app}\n`)) ?? '';
  const rows = [...section.matchAll(/^\| `([\w-]+\/)` \|([^|]*)\|/gm)];
  return new Map(rows.map(([, folder, tables]) => [folder, [...tables.matchAll(/`(\w+)`/g)].map((m) => m[1])]));
}

/** The folders directly under an app's `src/`, each with its `/`. */
export function appFolders(root: string, app: string): string[] {
  const src = join(root, 'apps', app, 'src');
  return readdirSync(src)
    .filter((name) => statSync(join(src, name)).isDirectory())
    .map((name) => `${name}/`)
    .sort();
}

/**
 * What docs/code-map.md gets wrong about an app: folders it lists that do not exist or misses, and
 * tables it puts in another folder than the one whose store writes them (`owners`: table → owner path
 * below the app's `src/`; tables owned outside the app must not be listed under a folder).
 */
export function codeMapProblems(root: string, app: string, owners: Readonly<Record<string, string | null>>): string[] {
  const map = codeMapOf(root, app);
  const folders = appFolders(root, app);
  const listed = [...map.keys()].sort();
  const problems = [
    ...folders.filter((folder) => !map.has(folder)).map((folder) => `${app}: folder ${folder} is missing`),
    ...listed.filter((folder) => !folders.includes(folder)).map((folder) => `${app}: folder ${folder} does not exist`),
  ];
  for (const [table, owner] of Object.entries(owners)) {
    const expected = owner === null ? [] : [`${owner.split('/')[0]}/`];
    const found = listed.filter((folder) => map.get(folder)!.includes(table));
    if (found.join() !== expected.join()) {
      problems.push(
        `${app}: table ${table} is listed under ${found.join(', ') || 'no folder'}, written in ${expected[0] ?? 'a library'}`,
      );
    }
  }
  for (const [folder, tables] of map) {
    for (const table of tables.filter((name) => !(name in owners)))
      problems.push(`${app}: ${folder} lists ${table}, no table`);
  }
  return problems;
}
