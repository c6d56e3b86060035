import { readdirSync } from 'node:fs';
import type { StoreExamples } from '../example-types';

/**
 * Every file of this folder but this one lists the examples of some stores as `STORE_EXAMPLES`: a store
 * is added by adding a file, so stores of different owners never edit one list.
 */
export const STORE_EXAMPLES: readonly StoreExamples[] = readdirSync(__dirname)
  .filter((file) => /^[\w-]+\.ts$/.test(file) && file !== 'index.ts')
  .sort()
  .flatMap((file) => (require(`./${file}`) as { STORE_EXAMPLES: readonly StoreExamples[] }).STORE_EXAMPLES);
