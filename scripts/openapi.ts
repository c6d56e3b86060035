/**
 * Writes the OpenAPI documents of the HTTP services without a database or Redis:
 *   npm run openapi [-- --out docs/openapi]
 * Nest's preview mode scans the real module graph (every controller and DTO) but instantiates no
 * provider, so neither TypeORM nor ioredis ever connects.
 */
import 'reflect-metadata';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { NestFactory } from '@nestjs/core';
import { ApiDocsSpec, buildOpenApiDocument, loadConfig } from '@app/platform';
import { BOT_API_DOCS } from '../apps/bot-api/src/api-docs';
import { AppModule as BotAppModule } from '../apps/bot-api/src/app.module';
import { BotConfig } from '../apps/bot-api/src/config/bot.config';
import { VOUCHER_API_DOCS } from '../apps/voucher-api/src/api-docs';
import { AppModule as VoucherAppModule } from '../apps/voucher-api/src/app.module';
import { VoucherConfig } from '../apps/voucher-api/src/config/voucher.config';

interface Target {
  name: string;
  spec: ApiDocsSpec;
  module: (env: NodeJS.ProcessEnv) => unknown;
}

const targets: Target[] = [
  {
    name: 'voucher-api',
    spec: VOUCHER_API_DOCS,
    module: (env) => VoucherAppModule.forRoot(loadConfig(VoucherConfig, env)),
  },
  { name: 'bot-api', spec: BOT_API_DOCS, module: (env) => BotAppModule.forRoot(loadConfig(BotConfig, env)) },
];

/**
 * Writes `<outDir>/<app>.json` for each HTTP app. The configuration is the defaults (plus `env`), never
 * the caller's environment, so the document does not depend on who runs the script.
 */
export async function writeOpenApiDocuments(outDir: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const target of targets) {
    const module = target.module({ LOG_LEVEL: 'silent', ...env });
    const app = await NestFactory.create(module as never, { preview: true, logger: false, abortOnError: false });
    const document = buildOpenApiDocument(app, target.spec);
    await app.close();
    const file = join(outDir, `${target.name}.json`);
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    written.push(file);
  }
  return written;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: join('docs', 'openapi') } } });
  for (const file of await writeOpenApiDocuments(values.out as string)) {
    const paths = Object.keys(JSON.parse(readFileSync(file, 'utf8')).paths).length;
    console.log(`wrote ${file} (${paths} paths)`);
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: Error) => {
      console.error(`openapi: ${error.stack ?? error.message}`);
      process.exit(1);
    },
  );
}
