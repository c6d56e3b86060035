/** `off`: the sealed route answers 404. `optional`: plain and sealed runtime calls. `required`: runtime calls only sealed. */
export const SEALED_TRANSPORT_MODES = ['off', 'optional', 'required'] as const;

export type SealedTransportMode = (typeof SEALED_TRANSPORT_MODES)[number];

/** The one route that carries sealed calls, and the JWKS of the keys it opens them with. */
export const SEALED_ROUTE = '/api/v1/open-platform/sealed';
export const SEALED_JWKS_ROUTE = '/.well-known/jwks.json';

/** Only runtime calls travel sealed; console, holder, staff, health and docs routes never do. */
export const SEALED_PATH_PREFIX = '/api/v1/open-platform/';

/** The algorithms of both directions, pinned: anything else in a protected header is refused. */
export const SEALED_KEY_ALGORITHM = 'ECDH-ES+A256KW';
export const SEALED_CONTENT_ALGORITHM = 'A256GCM';

export const JOSE_MEDIA_TYPE = 'application/jose';
