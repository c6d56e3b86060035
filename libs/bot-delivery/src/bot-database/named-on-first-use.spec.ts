import { namedStatement } from '@app/platform';
import { namedOnFirstUse } from './named-on-first-use';

describe('named statements built on first use', () => {
  it('builds the text when it is first read, once, under the given name', () => {
    const build = jest.fn(() => 'SELECT 1 AS built_once');
    const statement = namedOnFirstUse('test.first_use.once', build);
    expect(build).not.toHaveBeenCalled();
    expect(statement.name).toBe('test.first_use.once');
    expect(statement.text).toBe('SELECT 1 AS built_once');
    expect(statement.text).toBe('SELECT 1 AS built_once');
    expect(build).toHaveBeenCalledTimes(1);
  });

  it('refuses, on first use, a name another statement holds with a different text', () => {
    namedStatement('test.first_use.clash', 'SELECT 1');
    const statement = namedOnFirstUse('test.first_use.clash', () => 'SELECT 2');
    expect(() => statement.text).toThrow(/declared twice/);
  });

  it.each([
    ['the updates store', './updates.store'],
    ['the deliveries store', './webhook-deliveries.store'],
  ])("splices the other store's fragments whichever loads first (%s first)", (_, first) => {
    jest.isolateModules(() => {
      require(first);
      const { RECORD_ATTEMPTS } = require('./webhook-deliveries.store') as typeof import('./webhook-deliveries.store');
      const { updatesWriteSql } = require('./updates.store') as typeof import('./updates.store');
      expect(RECORD_ATTEMPTS.text).toContain('UPDATE updates u SET acknowledged = true FROM moved m');
      expect(RECORD_ATTEMPTS.text).toContain('INSERT INTO webhook_delivery_attempts');
      expect(updatesWriteSql(1)).toContain('INSERT INTO webhook_deliveries');
    });
  });
});
