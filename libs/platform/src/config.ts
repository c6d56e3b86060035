import 'reflect-metadata';
import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  validateSync,
  ValidationError,
} from 'class-validator';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Environment booleans are strings; only the words true/false (or 1/0) are accepted. */
export function EnvBoolean(): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }) => {
      if (value === 'true' || value === '1' || value === true) return true;
      if (value === 'false' || value === '0' || value === false) return false;
      return value;
    })(target, key);
    IsBoolean({ message: `${String(key)} must be true or false` })(target, key);
  };
}

/** A comma-separated list of positive integers, e.g. `60000,300000`. */
export function EnvIntList(): PropertyDecorator {
  return (target, key) => {
    Transform(({ value }) =>
      typeof value === 'string' ? value.split(',').map((part) => (part.trim() === '' ? NaN : Number(part))) : value,
    )(target, key);
    IsInt({ each: true, message: `${String(key)} must be a comma-separated list of integers` })(target, key);
    Min(0, { each: true, message: `${String(key)} values must not be negative` })(target, key);
  };
}

/** Where the replicas of a service share queues, rate limits and wake-ups. */
export const COORDINATION_BACKENDS = ['redis', 'postgres'] as const;
export type CoordinationBackend = (typeof COORDINATION_BACKENDS)[number];

/** How the hot paths prepare their statements (see DB_PREPARED_STATEMENTS). */
export const PREPARED_STATEMENT_SETTINGS = ['auto', 'named', 'unnamed'] as const;
export type PreparedStatementSetting = (typeof PREPARED_STATEMENT_SETTINGS)[number];

/** Settings every service process shares. Apps extend it with their own variables and defaults. */
export class ServiceConfig {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: 'development' | 'test' | 'production' = 'development';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /**
   * The address the HTTP server listens on. Unset: every interface in production, where a container's
   * port must be reachable from outside it, and loopback only elsewhere, so that a development machine
   * serves nobody else on its network. `0.0.0.0` (or `::`) serves every interface.
   */
  @IsOptional()
  @IsString()
  @MinLength(1)
  HOST?: string;

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  PORT = 3000;

  @IsString()
  @MinLength(1)
  DB_HOST = '127.0.0.1';

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  DB_PORT = 5432;

  @IsString()
  @MinLength(1)
  DB_USER = 'postgres';

  @IsString()
  DB_PASSWORD = '';

  @IsString()
  @MinLength(1)
  DB_NAME = 'postgres';

  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(200)
  DB_POOL_SIZE = 10;

  /**
   * Connections the pool keeps open while idle, opened by the warm-up before the process reports
   * ready; capped at DB_POOL_SIZE.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(200)
  DB_POOL_MIN = 2;

  /**
   * Address of the PostgreSQL server itself, for what a transaction-mode pooler at DB_HOST:DB_PORT
   * cannot carry: migrations, and in the PostgreSQL-only mode the LISTEN connections and BullMQ's
   * queues. Each defaults to its DB_ counterpart (no pooler in between).
   */
  @IsOptional()
  @IsString()
  @MinLength(1)
  DB_DIRECT_HOST?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(65535)
  DB_DIRECT_PORT?: number;

  /**
   * How the hot paths' statements are prepared: `named` (parsed and planned once per connection),
   * `unnamed` (each call parses again; what a transaction-mode pooler that keeps no prepared
   * statements can carry), or `auto`: named when DB_HOST:DB_PORT is the server itself, unnamed when
   * a pooler answers there.
   */
  @IsIn(PREPARED_STATEMENT_SETTINGS, { message: 'DB_PREPARED_STATEMENTS must be auto, named or unnamed' })
  DB_PREPARED_STATEMENTS: PreparedStatementSetting = 'auto';

  /** Longest wait of a migration's statement for a lock before the migration fails (and can be run again). */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(600000)
  MIGRATION_LOCK_TIMEOUT_MS = 5000;

  /**
   * Longest run of a migration's statement; builds and validations that block no reader or writer
   * (CREATE INDEX CONCURRENTLY and the like) are not bounded by it.
   */
  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(86400000)
  MIGRATION_STATEMENT_TIMEOUT_MS = 60000;

  /** Create the database when it does not exist; on by default outside production. */
  @IsOptional()
  @EnvBoolean()
  DB_AUTO_CREATE?: boolean;

  /** Run pending migrations at boot; Kubernetes turns it off and runs the migration Job instead. */
  @EnvBoolean()
  MIGRATIONS_RUN = true;

  @IsString()
  @MinLength(1)
  REDIS_URL = 'redis://127.0.0.1:6379';

  /** Prefix of every Redis key and BullMQ queue of this process, so environments can share one Redis. */
  @IsString()
  REDIS_KEY_PREFIX = '';

  /**
   * `redis` or `postgres` (the PostgreSQL-only mode: queues, limits and wake-ups in the service's own
   * database). Required in production; elsewhere, when unset, Redis is used if it answers at boot.
   */
  @IsOptional()
  @IsIn(COORDINATION_BACKENDS, { message: 'COORDINATION_BACKEND must be redis or postgres' })
  COORDINATION_BACKEND?: CoordinationBackend;

  @IsString()
  @MinLength(2)
  BODY_LIMIT = '1mb';

  /**
   * Proxies (ingress, load balancer) in front of the HTTP app that append to `X-Forwarded-For`: the
   * client's address is taken that many hops from the right, so per-address limits count clients, not
   * the ingress. 0 (no proxy) uses the connection's address and ignores the header, which a client
   * could otherwise write itself.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10)
  TRUST_PROXY_HOPS = 0;

  @Type(() => Number)
  @IsInt()
  @Min(1000)
  @Max(120000)
  SHUTDOWN_TIMEOUT_MS = 9000;

  /** Whether readiness waits for the warm-up (connections, then the app's own representative requests). */
  @EnvBoolean()
  WARM_UP = true;

  /** Requests the warm-up sends to the app itself (0: connections only). */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10000)
  WARM_UP_REQUESTS = 200;

  /**
   * Runs of the app's rehearsal of its hot use case during the warm-up (0: none), spread over the open
   * pool connections; each runs in a transaction that is rolled back.
   */
  @Type(() => Number)
  @IsInt()
  @Min(0)
  @Max(10000)
  WARM_UP_REHEARSALS = 100;

  /** A warm-up still running after this long is abandoned with a warning, and the process reports ready. */
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(120000)
  WARM_UP_TIMEOUT_MS = 10000;

  /** Where `listen` binds: HOST, else loopback outside production; undefined is every interface (Node's `::`). */
  get listenHost(): string | undefined {
    return this.HOST ?? (this.NODE_ENV === 'production' ? undefined : '127.0.0.1');
  }

  get dbAutoCreate(): boolean {
    return this.DB_AUTO_CREATE ?? this.NODE_ENV !== 'production';
  }

  /** The backend chosen at boot (see resolveCoordinationBackend); reading it earlier is a programming error. */
  get coordinationBackend(): CoordinationBackend {
    if (!this.COORDINATION_BACKEND) {
      throw new Error('COORDINATION_BACKEND is not resolved yet: call resolveCoordinationBackend() at boot');
    }
    return this.COORDINATION_BACKEND;
  }

  /** Cross-field and production-only rules; subclasses add theirs. */
  extraProblems(): string[] {
    const problems: string[] = [];
    if (this.NODE_ENV === 'production' && !this.COORDINATION_BACKEND) {
      problems.push('COORDINATION_BACKEND: production needs an explicit choice of redis or postgres');
    }
    return problems;
  }
}

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const name = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(error.property) ? `${name}${message.slice(error.property.length)}` : `${name}: ${message}`,
    );
    return [...own, ...describe(error.children ?? [], name)];
  });
}

/** Reads and validates the environment; throws a ConfigError naming every bad variable. */
export function loadConfig<T extends ServiceConfig>(schema: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const config = plainToInstance(schema, defined, { exposeDefaultValues: true, excludeExtraneousValues: false });
  const problems = [...describe(validateSync(config, { forbidUnknownValues: false }))];
  if (problems.length === 0) problems.push(...config.extraProblems());
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
