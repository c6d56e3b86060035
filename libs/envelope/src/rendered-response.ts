/**
 * A response body already serialised to its final bytes. Idempotent replays and responses stored
 * inside a business transaction travel this way so that what the client receives is
 * byte-identical to what was stored.
 */
export class RenderedBody {
  constructor(readonly body: string) {}
}

/** The error twin of {@link RenderedBody}: thrown, then sent unchanged by the exception filter. */
export class RenderedErrorResponse extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`rendered ${status} response`);
    this.name = 'RenderedErrorResponse';
  }
}
