import type { Request, Response } from 'express';

/** Turns a handler's result into the body sent for it. */
export type SuccessRenderer = (req: Request, res: Response, status: number, result: unknown) => unknown;

/**
 * The HTTP adapter every app runs on (`httpAdapter()` of the platform) hands each successful handler
 * result to one renderer before Nest sends it. The envelope installs itself there instead of as a
 * global interceptor: an interceptor costs every request an async resource, a bound callback and an
 * observable chain, for what is a synchronous wrap of the result.
 */
export interface SuccessRenderingAdapter {
  renderSuccessWith(renderer: SuccessRenderer): void;
}

export function isSuccessRenderingAdapter(adapter: unknown): adapter is SuccessRenderingAdapter {
  return typeof (adapter as Partial<SuccessRenderingAdapter> | undefined)?.renderSuccessWith === 'function';
}
