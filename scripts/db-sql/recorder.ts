import type { Database, Session } from '@app/platform';

/** One statement a store method ran: its prepared name (if any), text and values. */
export interface RecordedStatement {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * A Session that records each statement instead of running it, answering every one with a single empty
 * row (so a method that needs a row goes on to its next statement, as it would on the happy path).
 */
export class StatementRecorder implements Session {
  readonly preparedStatements = 'named' as const;
  readonly statements: RecordedStatement[] = [];

  readonly executor = {
    query: async (query: { name?: string; text: string; values?: unknown[] }) => {
      this.statements.push({ name: query.name, text: query.text, values: query.values ?? [] });
      return { rows: [{}], rowCount: 1, command: '', oid: 0, fields: [] };
    },
  } as unknown as Session['executor'];

  /** The recorder where a store expects the service's Database (its pool-side statements). */
  asDatabase(): Database {
    return this as unknown as Database;
  }

  take(): RecordedStatement[] {
    return this.statements.splice(0);
  }
}
