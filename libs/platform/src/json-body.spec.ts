import { limitInBytes, nestedDeeperThan } from './json-body';

describe('nestedDeeperThan', () => {
  const nest = (levels: number): unknown => {
    let value: unknown = 1;
    for (let level = 0; level < levels; level++) value = level % 2 ? [value] : { v: value };
    return value;
  };

  it('counts objects and arrays as levels and scalars as none', () => {
    expect(nestedDeeperThan(nest(32), 32)).toBe(false);
    expect(nestedDeeperThan(nest(33), 32)).toBe(true);
    expect(nestedDeeperThan('text', 0)).toBe(false);
  });

  it('answers for a value nested a hundred thousand levels without overflowing the stack', () => {
    expect(nestedDeeperThan(nest(100_000), 32)).toBe(true);
  });
});

describe('limitInBytes', () => {
  it('reads the limit as body-parser does, in binary units and in any letter case', () => {
    expect(limitInBytes('1mb')).toBe(1024 * 1024);
    expect(limitInBytes('100KB')).toBe(100 * 1024);
    expect(limitInBytes('1.5kb')).toBe(1536);
    expect(limitInBytes('2048')).toBe(2048);
    expect(limitInBytes(' 10 b ')).toBe(10);
  });

  it('answers undefined for a spelling it does not know, so the body goes through body-parser', () => {
    expect(limitInBytes('1 megabyte')).toBeUndefined();
    expect(limitInBytes('-5kb')).toBeUndefined();
  });
});
