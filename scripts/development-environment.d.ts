// Types of development-environment.js (plain CommonJS, so that start-all.mjs loads it as is).

export type DevelopmentSecrets = Record<'ACCOUNT_JWT_SECRET' | 'INTERNAL_API_TOKEN' | 'FILE_URL_SIGNING_KEY', string>;

export const DEFAULT_SECRETS_FILE: string;
/** The checkout's development secrets: read from `file`, with any that are missing generated and written (0600). */
export function developmentSecrets(file?: string): DevelopmentSecrets;
/** What a development command adds to `env`: unset generated secrets and the embedded PostgreSQL's kept password. */
export function developmentEnvironment(env?: NodeJS.ProcessEnv, secretsFile?: string): Record<string, string>;
