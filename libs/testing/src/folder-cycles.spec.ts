import { folderCycles, FolderGraph, folderGraph } from './folder-cycles';
import { REPO_ROOT } from './service-process';

const APPS = ['voucher-api', 'bot-api', 'bot-dispatcher'];

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

  describe('the apps', () => {
    let graph: FolderGraph;
    beforeAll(() => {
      graph = folderGraph(REPO_ROOT, APPS);
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
});
