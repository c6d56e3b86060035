import { otherSpellings } from './letter-case';

describe('otherSpellings', () => {
  it('changes the static letters of a path, never its parameters, in three ways', () => {
    const { lower, spellings } = otherSpellings('/telegram/bot{token}/{method}', (name) => `<${name}>`);
    expect(lower).toBe('/telegram/bot<token>/<method>');
    expect(spellings).toEqual([
      '/TELEGRAM/BOT<token>/<method>',
      '/TeLeGrAm/BoT<token>/<method>',
      '/telegram/BoT<token>/<method>',
    ]);
  });

  it('keeps the lower-case prefix when only the last word is changed', () => {
    const { spellings } = otherSpellings('/api/v1/bots/admin/deliveries/redrives', () => 'x');
    expect(spellings).toContain('/api/v1/bots/admin/deliveries/ReDrIvEs');
  });
});
