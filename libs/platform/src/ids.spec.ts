import { isUuid } from './ids';

describe('isUuid', () => {
  it('accepts a textual UUID in either case', () => {
    expect(isUuid('2b1f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d')).toBe(true);
    expect(isUuid('2B1F3C4D-5E6F-4A7B-8C9D-0E1F2A3B4C5D')).toBe(true);
  });

  it('refuses anything a uuid column could not hold', () => {
    for (const value of [
      '',
      'not-a-uuid',
      '2b1f3c4d5e6f4a7b8c9d0e1f2a3b4c5d',
      '2b1f3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d ',
      42,
      null,
    ]) {
      expect(isUuid(value)).toBe(false);
    }
  });
});
