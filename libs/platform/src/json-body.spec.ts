import { nestedDeeperThan } from './json-body';

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
