import { DICE_EMOJI, diceMaximum, rollDice } from './dice';

describe('server-side dice', () => {
  it('uses 1–64 for the slot machine, 1–5 for football and basketball and 1–6 otherwise', () => {
    expect(diceMaximum('🎰')).toBe(64);
    expect(diceMaximum('⚽')).toBe(5);
    expect(diceMaximum('🏀')).toBe(5);
    expect(diceMaximum('🎲')).toBe(6);
    expect(diceMaximum('🎯')).toBe(6);
    expect(diceMaximum('🎳')).toBe(6);
  });

  it('always rolls inside the range of the emoji', () => {
    for (const emoji of DICE_EMOJI) {
      const seen = new Set<number>();
      for (let i = 0; i < 2000; i++) seen.add(rollDice(emoji));
      expect(Math.min(...seen)).toBe(1);
      expect(Math.max(...seen)).toBe(diceMaximum(emoji));
    }
  });

  it('asks the random source for exactly the closed range 1..max', () => {
    const calls: Array<[number, number]> = [];
    rollDice('🏀', (min, max) => {
      calls.push([min, max]);
      return min;
    });
    expect(calls).toEqual([[1, 6]]);
  });
});
