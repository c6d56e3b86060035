import { BOT_USERNAME_PATTERN } from './dto/bot-fields';
import { usernameCandidates, usernameStem } from './generated-username';

const BOT_ID = '0123456789abcdef01234567';

describe('usernames derived from a bot name', () => {
  it('keeps the Latin letters and digits of the name, lower case, words joined by underscores', () => {
    expect(usernameStem('Latte bot')).toBe('latte');
    expect(usernameStem('  Crème Brûlée – Orders 24/7! ')).toBe('creme_brulee_orders_24_7');
    expect(usernameStem('ShopBot')).toBe('shopbot');
    expect(usernameStem('Bot')).toBe('bot');
  });

  it('starts with a letter and is empty for a name without Latin letters', () => {
    expect(usernameStem('42 Robots')).toBe('robots');
    expect(usernameStem('Погода')).toBe('');
    expect(usernameStem('___')).toBe('');
  });

  it('offers the plain form, numbered forms, then one carrying the bot id, each ending in bot', () => {
    const candidates = usernameCandidates('Latte bot', BOT_ID);
    expect(candidates.slice(0, 3)).toEqual(['latte_bot', 'latte_2_bot', 'latte_3_bot']);
    expect(candidates).toHaveLength(21);
    expect(candidates[20]).toBe(`latte_${BOT_ID}_bot`);
    expect(new Set(candidates).size).toBe(21);
  });

  it('names a bot without Latin letters by its id, and keeps every candidate within the username rules', () => {
    expect(usernameCandidates('Погода', BOT_ID)[0]).toBe('bot_01234567_bot');
    const long = usernameCandidates('A'.repeat(100) + ' ' + 'b'.repeat(100), BOT_ID);
    for (const name of [...long, ...usernameCandidates('x', BOT_ID), ...usernameCandidates('Погода', BOT_ID)]) {
      expect(name).toMatch(BOT_USERNAME_PATTERN);
      expect(name).toMatch(/bot$/);
    }
    expect(long[0]).toHaveLength(64);
  });
});
