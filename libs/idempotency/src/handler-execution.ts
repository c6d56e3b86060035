import type { CallHandler } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { Observable } from 'rxjs';

/*
 * Whether a route's handler began to run. Nest runs an interceptor before the pipes (the
 * ValidationPipe among them), so a failure the interceptor sees may come from validation, before the
 * handler ran, and such a request must save nothing under its key. The handler itself says when it
 * starts: `MarksHandlerStart` wraps it and flips the flag the interceptor set up around `next.handle()`
 * (Nest binds the handler's run to the async context of that call).
 */

export interface HandlerExecution {
  started: boolean;
}

const current = new AsyncLocalStorage<HandlerExecution>();

/** The handler's observable, run under `execution`, which flips to started when the handler is called. */
export function handledUnder(execution: HandlerExecution, next: CallHandler): Observable<unknown> {
  return current.run(execution, () => next.handle());
}

/** Method decorator: the handler marks the execution it runs under as started when it is called. */
export function MarksHandlerStart(): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const handler = descriptor.value as (...args: unknown[]) => unknown;
    const marked = function (this: unknown, ...args: unknown[]): unknown {
      const execution = current.getStore();
      if (execution) execution.started = true;
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
