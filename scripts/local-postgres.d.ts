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
  user: string;
  /** The superuser's password, kept in `passwordFile` (0600). */
  password: string;
  /** The data folder asked for; the password and log files sit beside it. */
  dataDir: string;
  /** Where the cluster is: `dataDir`, or (as root) a folder the `postgres` user can reach. */
  clusterDir: string;
  /** Whether this start created the cluster. */
  created: boolean;
  logFile: string;
  passwordFile: string;
  stop(): Promise<void>;
}

export const DEFAULT_DATA_DIR: string;
export function databaseAddress(env?: NodeJS.ProcessEnv): DatabaseAddress;
export function embeddedPostgresPlan(env?: NodeJS.ProcessEnv): Promise<EmbeddedPostgresPlan>;
export function ensureLocalPostgres(options?: {
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  runtimeDir?: string;
  log?: (line: string) => void;
}): Promise<LocalPostgres | null>;
export function isLoopback(host: string): boolean;
/** The password kept for the embedded cluster of `env` (EMBEDDED_POSTGRES_DIR or .data/postgres), if any. */
export function keptPassword(env?: NodeJS.ProcessEnv): string | undefined;
export function rootRuntimeDir(dataDir: string): string;
export function scramVerifier(password: string, salt?: Buffer, iterations?: number): string;
export function somethingListens(host: string, port: number, timeoutMs?: number): Promise<boolean>;
/** The server's programs as the platform's package ships them. */
export interface PackagedBinaries {
  nativeDir: string;
  version: string;
  programs: { postgres: string; initdb: string; pgCtl: string };
}
export function packagedBinaries(): Promise<PackagedBinaries>;
/**
 * `password` empty: the one kept beside `dataDir`, or a new random one. `binaries` (the package's by
 * default) lets a test start the server from a copy of them elsewhere.
 */
export function startEmbeddedPostgres(
  options: Omit<DatabaseAddress, 'password'> & {
    password?: string;
    dataDir: string;
    runtimeDir?: string;
    binaries?: PackagedBinaries;
  },
): Promise<LocalPostgres>;
