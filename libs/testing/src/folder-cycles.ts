import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** A folder (or a file at the top of `src/`) of an app, and the ones its files import. */
export type FolderGraph = Map<string, Set<string>>;

/**
 * The import graph between the top-level folders of each app's `src/` (tests left out), from
 * dependency-cruiser, which resolves TypeScript imports (type-only ones included) as the compiler does.
 * Files at the top of `src/` (app.module.ts, bot-errors.ts, …) are nodes of their own.
 */
export function folderGraph(root: string, apps: readonly string[]): FolderGraph {
  // The package exports only its ESM API, which Jest's CommonJS runtime cannot load: run its CLI.
  const cli = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const output = execFileSync(
    process.execPath,
    [
      cli,
      ...apps.map((app) => `apps/${app}/src`),
      '--no-config',
      '--ts-config',
      'tsconfig.base.json',
      '--include-only',
      '^apps/',
      '--exclude',
      '\\.(e2e-)?spec\\.ts$',
      '--collapse',
      '^apps/[^/]+/src/[^/]+',
      '--output-type',
      'json',
    ],
    { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const { modules } = JSON.parse(output) as {
    modules: Array<{ source: string; dependencies: Array<{ resolved: string }> }>;
  };
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
