import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A folder (or a file at the top of `src/`) of an app, and the ones its files import. */
export type FolderGraph = Map<string, Set<string>>;

/** The modules dependency-cruiser found, each with the modules it imports (resolved paths from the root). */
type CruisedModules = Array<{ source: string; dependencies: Array<{ resolved: string }> }>;

/**
 * Runs dependency-cruiser over `roots` (paths from `root`), tests left out. `--ts-pre-compilation-deps`
 * makes it read the TypeScript source before compilation, so `import type` and imports used only as
 * types count: without it they are erased first and a cycle made of them is invisible.
 */
function cruise(root: string, roots: readonly string[], options: readonly string[], exclude?: string): CruisedModules {
  // The package exports only its ESM API, which Jest's CommonJS runtime cannot load: run its CLI.
  const cli = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const output = execFileSync(
    process.execPath,
    [
      cli,
      ...roots,
      '--no-config',
      '--ts-pre-compilation-deps',
      '--ts-config',
      'tsconfig.base.json',
      '--exclude',
      ['\\.(e2e-)?spec\\.ts$', ...(exclude ? [exclude] : [])].join('|'),
      ...options,
      '--output-type',
      'json',
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  return (JSON.parse(output) as { modules: CruisedModules }).modules;
}

const escaped = (path: string): string => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The import graph between the top-level folders of each source folder in `sources` (an app's
 * `apps/<app>/src`), type-only imports included. Files at the top of a source folder (app.module.ts,
 * bot-errors.ts, …) are nodes of their own.
 */
export function folderGraph(root: string, sources: readonly string[]): FolderGraph {
  const within = `^(${sources.map(escaped).join('|')})/`;
  return graphOf(cruise(root, sources, ['--include-only', within, '--collapse', `${within}[^/]+`]));
}

/**
 * The import graph between the files under `folders` (each lib's `libs/<lib>/src`), type-only imports
 * included, with imports through a lib's path alias resolved to the file they name. `exclude` leaves
 * out files by a regular expression on their path (the fixtures that hold cycles on purpose).
 */
export function fileGraph(root: string, folders: readonly string[], exclude?: string): FolderGraph {
  const within = `^(${folders.map(escaped).join('|')})/`;
  return graphOf(cruise(root, folders, ['--include-only', within], exclude));
}

function graphOf(modules: CruisedModules): FolderGraph {
  return new Map(
    modules.map((module) => [
      module.source,
      new Set(module.dependencies.map((dependency) => dependency.resolved).filter((to) => to !== module.source)),
    ]),
  );
}

/**
 * The folders that import each other in a circle (the strongly connected components of more than one
 * node, by Tarjan's algorithm), each given as one cycle through them: `a -> b -> c -> a`.
 */
export function folderCycles(graph: FolderGraph): string[] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    lowest.set(node, index.get(node)!);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(next)!));
      } else if (stack.includes(next)) {
        lowest.set(node, Math.min(lowest.get(node)!, index.get(next)!));
      }
    }
    if (lowest.get(node) === index.get(node)) {
      const component = stack.splice(stack.indexOf(node));
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components.map((component) => cycleThrough(graph, new Set(component)).join(' -> '));
}

/** One closed walk from the first member of a strongly connected component back to it, shortest first. */
function cycleThrough(graph: FolderGraph, component: ReadonlySet<string>): string[] {
  const start = [...component].sort()[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0])!);
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start];
}
