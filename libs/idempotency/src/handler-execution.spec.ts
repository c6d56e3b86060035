import { SetMetadata } from '@nestjs/common';
import { HANDLER_STARTED, HandlerStartMark, MarksHandlerStart } from './handler-execution';

class Handlers {
  readonly own = 'instance';

  @MarksHandlerStart()
  @SetMetadata('written-below', 'kept')
  echo(...args: unknown[]): unknown {
    return { self: this.own, args };
  }
}

class Execution implements HandlerStartMark {
  started = false;
  [HANDLER_STARTED](): void {
    this.started = true;
  }
}

describe('MarksHandlerStart', () => {
  const handlers = new Handlers();

  it('marks the argument that carries the execution when the handler is called, with its instance and arguments intact', () => {
    const execution = new Execution();
    expect(handlers.echo('a', execution, 2)).toEqual({ self: 'instance', args: ['a', execution, 2] });
    expect(execution.started).toBe(true);
  });

  it('leaves the execution unstarted when the handler is never called (a pipe refused the request first)', () => {
    const execution = new Execution();
    const refusedByPipe = () => {
      throw new Error('invalid');
    };
    expect(() => (refusedByPipe(), handlers.echo(execution))).toThrow('invalid');
    expect(execution.started).toBe(false);
  });

  it('marks the execution a request argument holds (a handler that reads its call from the request)', () => {
    const execution = new Execution();
    const req = { idempotentCall: execution, body: {} };
    handlers.echo(req);
    expect(execution.started).toBe(true);
  });

  it('runs the handler without any execution among its arguments too', () => {
    expect(handlers.echo()).toEqual({ self: 'instance', args: [] });
    expect(handlers.echo(null, undefined, { started: false })).toEqual({
      self: 'instance',
      args: [null, undefined, { started: false }],
    });
  });

  it('keeps the name and the metadata the decorators written below it left on the handler', () => {
    expect(Handlers.prototype.echo.name).toBe('echo');
    expect(Reflect.getMetadata('written-below', Handlers.prototype.echo)).toBe('kept');
  });
});
