import type { SqlTarget } from '@app/platform';
import type { StatementRecorder } from './recorder';

/** One store method called with example values: `run` calls it on the store and the transaction given. */
export interface Example<S> {
  method: string;
  run: (store: S, tx: SqlTarget) => Promise<unknown>;
}

/** A store whose statements are written to `<file>.sql` beside it, and the calls that show them all. */
export interface StoreExamples<S = unknown> {
  /** The store's file, relative to the repository root. */
  file: string;
  create: (recorder: StatementRecorder) => S;
  examples: Example<S>[];
}

/** One store's examples, typed by its store and listed among others of any store. */
export function store<S>(entry: StoreExamples<S>): StoreExamples {
  return entry as unknown as StoreExamples;
}
