import { join } from 'node:path';
import * as ts from 'typescript';

const ROOT = join(__dirname, '../..');
const SCHEMA = join(ROOT, 'apps/voucher-api/src/database/schema.generated.ts');
const STORE = join(ROOT, 'apps/voucher-api/src/users/users.store.ts');

/** The compiler's errors for `STORE`, with the generated schema file's text passed through `edit`. */
function storeErrors(edit: (schema: string) => string): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  )!;
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => {
    const text = readFile(file);
    return text !== undefined && ts.sys.resolvePath(file) === SCHEMA ? edit(text) : text;
  };
  const program = ts.createProgram({ rootNames: [STORE], options: { ...config.options, noEmit: true }, host });
  return ts
    .getPreEmitDiagnostics(program, program.getSourceFile(STORE))
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

/**
 * What the generated schema types are for: a migration that renames a column regenerates
 * schema.generated.ts (its drift test insists), and every typed statement on the old name stops
 * compiling, so `npm run typecheck` fails before any test runs a statement against the database.
 */
describe('a column renamed in the migrated schema', () => {
  it('compiles the users store against the schema as the migrations leave it', () => {
    expect(storeErrors((schema) => schema)).toEqual([]);
  }, 120_000);

  it('makes the users store fail to compile once users.name is renamed', () => {
    const renamed = (schema: string) => {
      const users = /export interface Users \{[^}]*\}/.exec(schema)![0];
      return schema.replace(users, users.replace(/\bname: string;/, 'display_name: string;'));
    };
    const errors = storeErrors(renamed);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toMatch(/"name"/);
  }, 120_000);
});
