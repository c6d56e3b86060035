/*
 * Whether a route's handler began to run. Nest runs an interceptor before the pipes (the
 * ValidationPipe among them), so a failure the interceptor sees may come from validation, before the
 * handler ran, and such a request must save nothing under its key. The handler itself says when it
 * starts: `MarksHandlerStart` wraps it and, when it is called, marks every argument that carries the
 * request's execution: the `IdempotentCall` of `@IdempotencyKey()`, a service's wrapper of it, or the
 * request itself (`@Req()`), which holds the call the interceptor made.
 * Nest calls the handler only once every pipe has passed. The mark travels with the argument rather
 * than through an AsyncLocalStorage: entering one turns on promise hooks for the whole process, a cost
 * every promise of every request paid from then on.
 */

/** The method an argument implements to learn that the handler it was passed to has started. */
export const HANDLER_STARTED = Symbol('idempotency:handler-started');

export interface HandlerStartMark {
  [HANDLER_STARTED](): void;
}

/** Where the interceptor leaves a request's call (see `idempotentCallOf`). */
export const REQUEST_CALL = 'idempotentCall';

function carriesMark(value: unknown): value is HandlerStartMark {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<HandlerStartMark>)[HANDLER_STARTED] === 'function'
  );
}

/** Method decorator: the handler marks the arguments that carry its execution as started when it is called. */
export function MarksHandlerStart(): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const handler = descriptor.value as (...args: unknown[]) => unknown;
    const marked = function (this: unknown, ...args: unknown[]): unknown {
      for (const arg of args) {
        if (carriesMark(arg)) arg[HANDLER_STARTED]();
        else if (typeof arg === 'object' && arg !== null) {
          const call = (arg as Record<string, unknown>)[REQUEST_CALL];
          if (carriesMark(call)) call[HANDLER_STARTED]();
        }
      }
      return handler.apply(this, args);
    };
    Object.defineProperty(marked, 'name', { value: handler.name });
    // Decorators applied before this one (those written below it) left their metadata on the handler.
    for (const key of Reflect.getOwnMetadataKeys(handler)) {
      Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, handler), marked);
    }
    descriptor.value = marked;
  };
}
