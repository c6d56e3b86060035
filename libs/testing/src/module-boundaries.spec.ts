import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The workspace rule that Nx tags express (type:app may use type:lib, never another app; libs never
 * reach into apps), checked on the import statements themselves so it cannot silently rot.
 */
const ROOT = resolve(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return path.endsWith('.ts') ? [path] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]);
}

function ownerOf(path: string): string {
  const [kind, name] = relative(ROOT, path).split(sep);
  return `${kind}/${name}`;
}

describe('module boundaries', () => {
  const files = [...sourceFiles(join(ROOT, 'apps')), ...sourceFiles(join(ROOT, 'libs'))];

  it('finds the workspace sources', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('keeps every relative import inside its own project, so apps never reach into each other or libs into apps', () => {
    const crossings = files.flatMap((file) =>
      imports(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => ({ file, target: resolve(file, '..', spec) }))
        .filter(({ file, target }) => ownerOf(target) !== ownerOf(file))
        .map(({ file, target }) => `${relative(ROOT, file)} -> ${relative(ROOT, target)}`),
    );
    expect(crossings).toEqual([]);
  });

  it('lets libraries use other libraries only through their @app aliases, never an app', () => {
    const offenders = files
      .filter((file) => relative(ROOT, file).startsWith('libs'))
      .flatMap((file) =>
        imports(file)
          .filter((spec) => /(^|\/)apps\//.test(spec))
          .map((spec) => `${relative(ROOT, file)} -> ${spec}`),
      );
    expect(offenders).toEqual([]);
  });
});
