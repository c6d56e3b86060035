import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

export type BotApiClient = Client<paths>;

/**
 * A typed client of bot-api generated from its OpenAPI document (openapi-typescript + openapi-fetch):
 * paths, parameters, bodies and responses are checked by the compiler.
 */
export function createBotApiClient(baseUrl: string, token?: string, fetchImpl?: typeof fetch): BotApiClient {
  return createClient<paths>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
