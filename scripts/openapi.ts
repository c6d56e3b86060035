/**
 * Writes the OpenAPI documents of the HTTP services without a database or Redis:
 *   npm run openapi [-- --out docs/openapi]
 * Nest's preview mode scans the real module graph (every controller and DTO) but instantiates no
 * provider, so neither TypeORM nor ioredis ever connects.
 */
import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  module: () => unknown;
}

// Defaults only: the document must not depend on whoever runs the script.
const targets: Target[] = [
  {
    name: 'voucher-api',
    spec: VOUCHER_API_DOCS,
    module: () => VoucherAppModule.forRoot(loadConfig(VoucherConfig, { LOG_LEVEL: 'silent' })),
  },
  { name: 'bot-api', spec: BOT_API_DOCS, module: () => BotAppModule.forRoot(loadConfig(BotConfig, { LOG_LEVEL: 'silent' })) },
];

export async function writeOpenApiDocuments(outDir: string): Promise<string[]> {
  mkdirSync(outDir, { recursive: true });
  const written: string[] = [];
  for (const target of targets) {
    const app = await NestFactory.create(target.module() as never, { preview: true, logger: false, abortOnError: false });
    const document = buildOpenApiDocument(app, target.spec);
    const file = join(outDir, `${target.name}.json`);
    writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`);
    written.push(file);
  }
  return written;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string', default: join('docs', 'openapi') } } });
  for (const file of await writeOpenApiDocuments(values.out as string)) {
    const paths = Object.keys(JSON.parse(require('node:fs').readFileSync(file, 'utf8')).paths).length;
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
