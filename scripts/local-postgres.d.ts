// Types of local-postgres.js (plain CommonJS, so that start-all.mjs and the Jest global setup load it as is).

export interface DatabaseAddress {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface EmbeddedPostgresPlan {
  start: boolean;
  address: DatabaseAddress;
  /** Why no server is started, when none is. */
  reason?: string;
}

export interface LocalPostgres {
  host: string;
  port: number;
  dataDir: string;
  logFile: string;
  stop(): Promise<void>;
}

export const DEFAULT_DATA_DIR: string;
export function databaseAddress(env?: NodeJS.ProcessEnv): DatabaseAddress;
export function embeddedPostgresPlan(env?: NodeJS.ProcessEnv): Promise<EmbeddedPostgresPlan>;
export function ensureLocalPostgres(options?: {
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  log?: (line: string) => void;
}): Promise<LocalPostgres | null>;
export function isLoopback(host: string): boolean;
export function somethingListens(host: string, port: number, timeoutMs?: number): Promise<boolean>;
export function startEmbeddedPostgres(options: DatabaseAddress & { dataDir: string }): Promise<LocalPostgres>;
