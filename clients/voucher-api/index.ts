import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './schema';
import { createSealedFetch, type SealedFetchOptions } from './sealed';

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

export {
  createSealedFetch,
  openAnswer,
  sealCall,
  type SealedAnswer,
  type SealedCall,
  type SealedFetchOptions,
} from './sealed';

/**
 * The same typed client over sealed transport: every call it makes goes to the sealed route as a
 * compact JWE and its answer is opened again, so switching transport changes no call.
 */
export function createSealedVoucherApiClient(
  serviceUrl: string,
  token?: string,
  options: Omit<SealedFetchOptions, 'serviceUrl'> = {},
): VoucherApiClient {
  return createVoucherApiClient(serviceUrl, token, createSealedFetch({ ...options, serviceUrl }));
}
