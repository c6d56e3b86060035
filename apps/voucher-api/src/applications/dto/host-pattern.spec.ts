import { isHostPattern, normaliseHostPatterns } from './host-pattern';

describe('isHostPattern', () => {
  it.each(['*', 'shop.example.com', '*.example.com', 'localhost', 'a-b.example.co.uk', '*.a.b.example.com'])(
    'accepts %s',
    (pattern) => expect(isHostPattern(pattern)).toBe(true),
  );

  it.each([
    '',
    'https://shop.example.com',
    'shop.example.com:8443',
    'shop.example.com/path',
    '*.com',
    '*example.com',
    'shop.*.example.com',
    '**.example.com',
    '-shop.example.com',
    'shop..example.com',
    'Shop.Example.com',
    ' shop.example.com',
    `${'a'.repeat(64)}.example.com`,
  ])('refuses %j', (pattern) => expect(isHostPattern(pattern)).toBe(false));

  it('refuses values that are not strings', () => {
    expect(isHostPattern(42)).toBe(false);
    expect(isHostPattern(null)).toBe(false);
  });
});

describe('normaliseHostPatterns', () => {
  it('lower-cases, trims and removes duplicates while keeping order', () => {
    expect(normaliseHostPatterns([' Shop.Example.com', '*.example.com', 'shop.example.com'])).toEqual([
      'shop.example.com',
      '*.example.com',
    ]);
  });

  it('leaves non-arrays for the validator to reject', () => {
    expect(normaliseHostPatterns('*')).toBe('*');
  });
});
