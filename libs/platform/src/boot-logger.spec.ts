import { Logger as NestLogger } from '@nestjs/common';
import { PassThrough } from 'node:stream';
import { jsonBootLogger, useBootLogger } from './boot-logger';

function collect(): { stream: PassThrough; lines: () => Array<Record<string, unknown>> } {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString()));
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the logger of the lines Nest writes before the app exists', () => {
  afterEach(() => NestLogger.overrideLogger(true));

  it('writes JSON lines at the process level, with the context and an error stack (defect: the first production line was coloured text)', () => {
    const { stream, lines } = collect();
    NestLogger.overrideLogger(jsonBootLogger('info', stream));
    new NestLogger('Coordination').log('coordination backend: Redis at redis:6379 (COORDINATION_BACKEND)');
    new NestLogger('ExceptionHandler').error('boot failed', 'Error: boot failed\n    at main');
    new NestLogger('Coordination').debug('not at info');
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 30,
        context: 'Coordination',
        msg: 'coordination backend: Redis at redis:6379 (COORDINATION_BACKEND)',
      }),
      expect.objectContaining({
        level: 50,
        context: 'ExceptionHandler',
        msg: 'boot failed',
        stack: expect.stringContaining('at main'),
      }),
    ]);
  });

  it('takes over only in production', () => {
    const override = jest.spyOn(NestLogger, 'overrideLogger');
    useBootLogger({ NODE_ENV: 'development', LOG_LEVEL: 'info' });
    expect(override).not.toHaveBeenCalled();
    useBootLogger({ NODE_ENV: 'production', LOG_LEVEL: 'info' });
    expect(override).toHaveBeenCalledTimes(1);
    override.mockRestore();
  });
});
