import type { Request } from 'express';

export const ENVELOPE_STYLE = Symbol('ENVELOPE_STYLE');
export const ERROR_CATALOG = Symbol('ERROR_CATALOG');

/**
 * A check of the parsed request that every route gets before its own guards, interceptors and pipes;
 * it throws to refuse. Provided (globally) by the app's HTTP foundation, run by the envelope's
 * RequestInputGuard, the first global guard.
 */
export const REQUEST_INPUT_CHECK = Symbol('REQUEST_INPUT_CHECK');
export type RequestInputCheck = (req: Request) => void;
