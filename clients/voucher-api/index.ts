import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';

export type { components, operations, paths } from './schema';

export type VoucherApiClient = Client<paths>;

/**
 * A typed client of voucher-api generated from its OpenAPI document (openapi-typescript + openapi-fetch):
 * paths, parameters, bodies and responses are checked by the compiler.
 */
export function createVoucherApiClient(baseUrl: string, token?: string, fetchImpl?: typeof fetch): VoucherApiClient {
  return createClient<paths>({
    baseUrl,
    headers: token ? { Authorization: `Bearer ${token}` } : {},
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  });
}
