import { detectedEntitiesOf, detectEntities } from './detect';
import { detectWithPatterns, random, randomText } from './detect-reference';

describe('entity detection by scanners', () => {
  // 1,000 texts here, where every mutant of the scanners runs them (npm run test:mutation); the
  // 20,000 of detect-random.spec.ts run with the other tests only.
  it('finds what the regular expressions found, on 1 000 random texts', () => {
    const next = random(36);
    for (let i = 0; i < 1_000; i++) {
      const text = randomText(next);
      const found = detectEntities(text);
      const expected = detectWithPatterns(text);
      if (JSON.stringify(found) !== JSON.stringify(expected)) {
        // The text that differs, in the failure message.
        expect({ text, found }).toEqual({ text, found: expected });
      }
    }
  });

  it.each([
    ['#news, #2024 #2024a #_x #ünïcödé #𝐀𝐁 #tag😀 #a#b', ['#news', '#2024a', '#_x', '#ünïcödé', '#𝐀𝐁']],
    [
      'mail bob@example.org. or a.b+c@mail.co.uk, not x@y.z1 but x@y.ab.1 and x@-a.bc',
      ['bob@example.org', 'a.b+c@mail.co.uk', 'x@y.ab', 'x@-a.bc'],
    ],
    ['(https://a.b/c?d=(e)). «http://x.y/z»', ['https://a.b/c?d=(e', 'http://x.y/z']],
    ['/start@my_bot /a@bc /' + 'x'.repeat(33) + ' @ab @abc @' + 'y'.repeat(33), ['/start@my_bot', '@abc']],
  ])('keeps the rules of each kind: %j', (text, expected) => {
    const found = detectEntities(text).map((entity) => text.slice(entity.offset, entity.offset + entity.length));
    expect(found).toEqual(expected);
  });

  it('leaves out what overlaps code or a link of the formatting, however many there are', () => {
    const text = '/a '.repeat(300);
    const code = Array.from({ length: 100 }, (_, i) => ({ type: 'code' as const, offset: i * 6, length: 2 }));
    const found = detectedEntitiesOf(text, code);
    expect(found).toHaveLength(200);
    expect(found.every((entity) => entity.offset % 6 === 3 || entity.offset >= 600)).toBe(true);
  });
});
