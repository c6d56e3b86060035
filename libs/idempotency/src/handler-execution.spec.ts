import { CallHandler, SetMetadata } from '@nestjs/common';
import { AsyncResource } from 'node:async_hooks';
import { defer, lastValueFrom } from 'rxjs';
import { HandlerExecution, handledUnder, MarksHandlerStart } from './handler-execution';

class Handlers {
  readonly own = 'instance';

  @MarksHandlerStart()
  @SetMetadata('written-below', 'kept')
  echo(...args: unknown[]): unknown {
    return { self: this.own, args };
  }
}

describe('MarksHandlerStart', () => {
  const handlers = new Handlers();
  const nestLike = (pipes: () => void): CallHandler => ({
    handle: () =>
      defer(
        AsyncResource.bind(async () => {
          pipes();
          return handlers.echo('a', 2);
        }),
      ),
  });

  it('marks the execution started when the handler is called, with its instance and arguments intact', async () => {
    const execution: HandlerExecution = { started: false };
    const result = await lastValueFrom(handledUnder(execution, nestLike(() => undefined)));
    expect(result).toEqual({ self: 'instance', args: ['a', 2] });
    expect(execution.started).toBe(true);
  });

  it('leaves the execution unstarted when a pipe refuses the request first', async () => {
    const execution: HandlerExecution = { started: false };
    await expect(
      lastValueFrom(
        handledUnder(
          execution,
          nestLike(() => {
            throw new Error('invalid');
          }),
        ),
      ),
    ).rejects.toThrow('invalid');
    expect(execution.started).toBe(false);
  });

  it('runs the handler outside any execution too', () => {
    expect(handlers.echo()).toEqual({ self: 'instance', args: [] });
  });

  it('keeps the name and the metadata the decorators written below it left on the handler', () => {
    expect(Handlers.prototype.echo.name).toBe('echo');
    expect(Reflect.getMetadata('written-below', Handlers.prototype.echo)).toBe('kept');
  });
});
