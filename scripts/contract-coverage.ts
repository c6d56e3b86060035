/**
 * Sums up what the contract checks of the last test run saw: per service, how many documented
 * operations and documented responses (operation × status) at least one e2e test produced.
 * Usage: `npm test` (or any jest run of the e2e suites), then `npm run contract:coverage`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACT_COVERAGE_DIR } from '../libs/testing/src/contract';

interface Record {
  operations: string[];
  responses: string[];
  covered: string[];
}

if (!existsSync(CONTRACT_COVERAGE_DIR)) {
  console.log('No contract coverage recorded yet: run the e2e tests first.');
  process.exit(0);
}
for (const file of readdirSync(CONTRACT_COVERAGE_DIR).filter((name) => name.endsWith('.jsonl'))) {
  const records: Record[] = readFileSync(join(CONTRACT_COVERAGE_DIR, file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const operations = new Set(records.flatMap((record) => record.operations));
  const responses = new Set(records.flatMap((record) => record.responses));
  const covered = new Set(records.flatMap((record) => record.covered).filter((key) => responses.has(key)));
  const coveredOperations = new Set([...covered].map((key) => key.split(' ').slice(0, 2).join(' ')));
  console.log(
    `${file.replace('.jsonl', '')}: ${coveredOperations.size} of ${operations.size} operations and ` +
      `${covered.size} of ${responses.size} documented responses checked against the document`,
  );
}
