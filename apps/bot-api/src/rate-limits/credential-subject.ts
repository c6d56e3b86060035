import type { Request } from 'express';

type CountedRequest = Request & { rateLimitCredential?: string };

/**
 * For a route counted per client address until its credential is known (verifyToken's token, a signed
 * URL): its guard names the credential once it checked out, and the call then counts against that
 * credential's budget instead of the address's. A valid call is never refused for what others sharing
 * its address sent; what fails its check still counts against the address.
 */
export function countAgainstCredential(req: Request, credential: string): void {
  (req as CountedRequest).rateLimitCredential = credential;
}

export function credentialOf(req: Request): string | undefined {
  return (req as CountedRequest).rateLimitCredential;
}
