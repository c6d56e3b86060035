import type { Request } from 'express';
import type { OpenedCall } from './sealed-transport.service';

const SEALED_CALL = Symbol('sealedCall');

type RequestWithSealedCall = Request & { [SEALED_CALL]?: OpenedCall };

/** Marks a request as the logical call of an opened seal, for the guard that admits it after routing. */
export function markSealed(req: Request, call: OpenedCall): void {
  (req as RequestWithSealedCall)[SEALED_CALL] = call;
}

export function sealedCallOf(req: Request): OpenedCall | undefined {
  return (req as RequestWithSealedCall)[SEALED_CALL];
}
