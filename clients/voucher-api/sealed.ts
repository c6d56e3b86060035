import { compactDecrypt, CompactEncrypt, exportJWK, generateKeyPair, importJWK, type JWK, type KeyLike } from 'jose';

/** The algorithms of sealed transport, pinned in both directions (docs/sealed-transport.md). */
export const SEALED_ALG = 'ECDH-ES+A256KW';
export const SEALED_ENC = 'A256GCM';
export const SEALED_ROUTE = '/api/v1/open-platform/sealed';
export const SEALED_JWKS_ROUTE = '/.well-known/jwks.json';

const PINNED = { keyManagementAlgorithms: [SEALED_ALG], contentEncryptionAlgorithms: [SEALED_ENC] };
/** Headers a plain call carries that are no secret, so they stay on the outer request. */
const OUTER_HEADERS = ['origin', 'user-agent', 'x-request-id'];

export interface SealedFetchOptions {
  /** The service's root URL (scheme, host and any prefix a proxy adds), e.g. `https://vouchers.example.com`. */
  serviceUrl: string;
  /** The transport underneath (default: the global `fetch`). */
  fetch?: typeof fetch;
  /** How long the JWKS is reused before it is fetched again (default 5 minutes). */
  jwksTtlMs?: number;
  /** The clock, in milliseconds; tests and clients with a known skew set it. */
  now?: () => number;
}

/** What a sealed call carries; the server accepts exactly these members. */
export interface SealedCall {
  method: string;
  path: string;
  headers: { authorization?: string; 'idempotency-key'?: string };
  body?: string;
  iat: number;
  jti: string;
  response_key: JWK;
}

/** The sealed answer's plaintext: the whole response of the logical call. */
export interface SealedAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface ServiceKey {
  kid: string;
  key: KeyLike | Uint8Array;
}

function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Seals `call` to the service key `kid`: the compact JWE a sealed route takes. */
export function sealCall(call: SealedCall, serviceKey: KeyLike | Uint8Array, kid: string): Promise<string> {
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(call)))
    .setProtectedHeader({ alg: SEALED_ALG, enc: SEALED_ENC, kid, cty: 'json' })
    .encrypt(serviceKey);
}

/** Opens a sealed answer with the call's ephemeral private key, with the algorithms pinned. */
export async function openAnswer(jwe: string, answerKey: KeyLike | Uint8Array): Promise<SealedAnswer> {
  const { plaintext } = await compactDecrypt(jwe, answerKey, PINNED);
  return JSON.parse(new TextDecoder().decode(plaintext)) as SealedAnswer;
}

/**
 * A `fetch` that sends every call sealed to voucher-api's sealed route and gives back the opened answer
 * as an ordinary `Response`, so a client built on it (the typed client) works unchanged. The service's
 * JWKS is fetched on first use and cached; a seal refused for an unknown `kid` (the keys rotated)
 * refreshes it and is sealed again once. A refusal of the seal itself comes back as it was sent: a 4xx
 * in the envelope.
 */
export function createSealedFetch(options: SealedFetchOptions): typeof fetch {
  const transport = options.fetch ?? fetch;
  const root = new URL(options.serviceUrl);
  const prefix = root.pathname.replace(/\/$/, '');
  const ttlMs = options.jwksTtlMs ?? 5 * 60_000;
  const now = options.now ?? Date.now;
  let cached: { key: Promise<ServiceKey>; fetchedAt: number } | undefined;

  const serviceKey = (refresh: boolean): Promise<ServiceKey> => {
    if (refresh || !cached || now() - cached.fetchedAt > ttlMs) {
      const key = newestKey(transport, `${root.origin}${prefix}${SEALED_JWKS_ROUTE}`);
      cached = { key, fetchedAt: now() };
      key.catch(() => (cached = undefined));
    }
    return cached.key;
  };

  const send = async (request: Request, body: string | undefined, refresh: boolean): Promise<Response> => {
    const url = new URL(request.url);
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    const answerKeys = await generateKeyPair(SEALED_ALG, { crv: 'P-256', extractable: true });
    const headers: SealedCall['headers'] = {};
    const authorization = request.headers.get('authorization');
    const idempotencyKey = request.headers.get('idempotency-key');
    if (authorization !== null) headers.authorization = authorization;
    if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
    const call: SealedCall = {
      method: request.method,
      path: `${path}${url.search}`,
      headers,
      ...(body ? { body } : {}),
      iat: Math.floor(now() / 1000),
      jti: base64url(crypto.getRandomValues(new Uint8Array(18))),
      response_key: await exportJWK(answerKeys.publicKey),
    };
    const { kid, key } = await serviceKey(refresh);
    const outer = new Headers({ 'content-type': 'application/jose', accept: 'application/jose' });
    for (const name of OUTER_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) outer.set(name, value);
    }
    const response = await transport(`${root.origin}${prefix}${SEALED_ROUTE}`, {
      method: 'POST',
      headers: outer,
      body: await sealCall(call, key, kid),
      signal: request.signal,
    });
    if (!response.ok || !response.headers.get('content-type')?.startsWith('application/jose')) {
      if (!refresh && response.status === 400) {
        const refusal = (await response
          .clone()
          .json()
          .catch(() => undefined)) as { error?: { code?: string } } | undefined;
        if (refusal?.error?.code === 'SEALED_KEY_UNKNOWN') return send(request, body, true);
      }
      return response;
    }
    const answer = await openAnswer(await response.text(), answerKeys.privateKey);
    const empty = answer.status === 204 || answer.status === 304 || request.method === 'HEAD';
    return new Response(empty ? null : answer.body, { status: answer.status, headers: answer.headers });
  };

  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? await request.text() : undefined;
    return send(request, body, false);
  };
}

async function newestKey(transport: typeof fetch, url: string): Promise<ServiceKey> {
  const response = await transport(url, { headers: { accept: 'application/jwk-set+json, application/json' } });
  if (!response.ok) throw new Error(`the service's JWKS answered ${response.status}; is sealed transport on?`);
  const { keys } = (await response.json()) as { keys?: Array<JWK & { kid?: string }> };
  const newest = keys?.find((jwk) => jwk.alg === SEALED_ALG && jwk.use === 'enc' && typeof jwk.kid === 'string');
  if (!newest) throw new Error(`the service's JWKS has no ${SEALED_ALG} key`);
  return { kid: newest.kid!, key: await importJWK(newest, SEALED_ALG) };
}
