import { nulPath } from './nul-input';

describe('nulPath', () => {
  it('names the path of a NUL character anywhere in nested input', () => {
    expect(nulPath({ name: 'a\u0000b' }, 'body')).toBe('body.name');
    expect(nulPath({ usage_rules: { stores: ['ok', 'x\u0000'] } }, 'body')).toBe('body.usage_rules.stores[1]');
    expect(nulPath({ ['k\u0000']: 1 }, 'query')).toBe('query');
  });

  it('finds nothing in clean input', () => {
    expect(nulPath({ name: 'Coffee', n: 1, list: [null, true, { a: 'b' }] }, 'body')).toBeNull();
    expect(nulPath(undefined, 'body')).toBeNull();
  });
});
