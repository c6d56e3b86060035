import { detectEntities } from './detect';
import { detectWithPatterns, random, randomText } from './detect-reference';

describe('entity detection by scanners, on many texts', () => {
  it('finds what the regular expressions found, on 20 000 random texts', () => {
    const next = random(35);
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(next);
      const found = detectEntities(text);
      const expected = detectWithPatterns(text);
      if (JSON.stringify(found) !== JSON.stringify(expected)) {
        // The text that differs, in the failure message.
        expect({ text, found }).toEqual({ text, found: expected });
      }
    }
  });
});
