import { randomInt } from 'node:crypto';

export const DICE_EMOJI = ['🎲', '🎯', '🏀', '⚽', '🎳', '🎰'] as const;
export type DiceEmoji = (typeof DICE_EMOJI)[number];
export const DEFAULT_DICE_EMOJI: DiceEmoji = '🎲';

/** Highest value the server may roll for an emoji (spec 4.2: slot machine 1–64, football and basketball 1–5, else 1–6). */
export function diceMaximum(emoji: DiceEmoji): number {
  if (emoji === '🎰') return 64;
  if (emoji === '⚽' || emoji === '🏀') return 5;
  return 6;
}

export function rollDice(emoji: DiceEmoji, random: (min: number, maxExclusive: number) => number = randomInt): number {
  return random(1, diceMaximum(emoji) + 1);
}
