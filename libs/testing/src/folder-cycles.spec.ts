import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileGraph, folderCycles, FolderGraph, folderGraph } from './folder-cycles';
import { REPO_ROOT } from './service-process';

const APPS = ['voucher-api', 'bot-api', 'bot-dispatcher'];
const LIBS = readdirSync(join(REPO_ROOT, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
/** Folders whose files hold import cycles on purpose, to show that the checks find them. */
const FIXTURES = '^libs/testing/src/fixtures/';
const TYPE_ONLY_CYCLE = 'libs/testing/src/fixtures/type-only-cycle/src';

describe('folder cycles', () => {
  it('finds a cycle through folders and names the folders on it', () => {
    const graph: FolderGraph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c', 'd'])],
      ['c', new Set(['a'])],
      ['d', new Set<string>()],
    ]);
    expect(folderCycles(graph)).toEqual(['a -> b -> c -> a']);
    expect(
      folderCycles(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set<string>()],
        ]),
      ),
    ).toEqual([]);
  });

  // The check of the apps below is only as good as the graph it reads: a graph without type-only
  // imports let a cycle of them through.
  it('reports a cycle between folders made of type-only imports alone', () => {
    const graph = folderGraph(REPO_ROOT, [TYPE_ONLY_CYCLE]);
    expect(folderCycles(graph)).toEqual([
      `${TYPE_ONLY_CYCLE}/customers -> ${TYPE_ONLY_CYCLE}/orders -> ${TYPE_ONLY_CYCLE}/customers`,
    ]);
    expect(graph.get(`${TYPE_ONLY_CYCLE}/main.ts`)).toEqual(new Set([`${TYPE_ONLY_CYCLE}/orders`]));
  }, 60_000);

  it('reports a cycle between files made of type-only imports alone', () => {
    const graph = fileGraph(REPO_ROOT, [TYPE_ONLY_CYCLE]);
    expect(folderCycles(graph)).toEqual([
      `${TYPE_ONLY_CYCLE}/customers/customer.ts -> ${TYPE_ONLY_CYCLE}/orders/order.ts -> ${TYPE_ONLY_CYCLE}/customers/customer.ts`,
    ]);
  }, 60_000);

  describe('the apps', () => {
    let graph: FolderGraph;
    beforeAll(() => {
      graph = folderGraph(
        REPO_ROOT,
        APPS.map((app) => `apps/${app}/src`),
      );
    }, 180_000);

    it('reads the imports between the folders of every app', () => {
      for (const app of APPS)
        expect([...graph.keys()].filter((node) => node.startsWith(`apps/${app}/src/`)).length).toBeGreaterThan(3);
      expect(graph.get('apps/bot-api/src/app.module.ts')).toContain('apps/bot-api/src/bots');
    });

    it('has no folder of an app that imports, directly or not, a folder that imports it', () => {
      const cycles = folderCycles(graph);
      if (cycles.length > 0) console.error(`import cycles between folders:\n${cycles.join('\n')}`);
      expect(cycles).toEqual([]);
    });
  });

  describe('the libs', () => {
    let graph: FolderGraph;
    beforeAll(() => {
      graph = fileGraph(
        REPO_ROOT,
        LIBS.map((lib) => `libs/${lib}/src`),
        FIXTURES,
      );
    }, 180_000);

    it('reads the imports between the files of every lib, through path aliases too', () => {
      expect(graph.get('libs/bot-delivery/src/index.ts')).toContain('libs/bot-delivery/src/queue.ts');
      expect([...graph.keys()].some((file) => file.startsWith('libs/testing/src/fixtures/'))).toBe(false);
    });

    // A module of a circle may be read before it has finished loading, so its constants are undefined
    // where the other uses them (the lazy statements that worked around it were the symptom).
    it('has no file of a lib that imports, directly or not, a file that imports it', () => {
      const cycles = folderCycles(graph);
      if (cycles.length > 0) console.error(`import cycles between files:\n${cycles.join('\n')}`);
      expect(cycles).toEqual([]);
    });
  });
});
