import { replyMarkupProblem } from '../../messages/dto/reply-markup';

describe('reply_markup validation', () => {
  it('accepts an inline keyboard of callback and url buttons', () => {
    expect(
      replyMarkupProblem({
        inline_keyboard: [
          [
            { text: 'Yes', callback_data: 'yes' },
            { text: 'Site', url: 'https://example.com' },
          ],
        ],
      }),
    ).toBeNull();
  });

  it('limits callback_data to 1–64 bytes, counting UTF-8 bytes rather than characters', () => {
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', callback_data: 'x'.repeat(64) }]] })).toBeNull();
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', callback_data: 'x'.repeat(65) }]] })).toMatch(
      /64 bytes/,
    );
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', callback_data: 'é'.repeat(33) }]] })).toMatch(
      /64 bytes/,
    );
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', callback_data: '' }]] })).toMatch(/64 bytes/);
  });

  it('refuses buttons with neither or both actions, unknown fields and malformed shapes', () => {
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a' }]] })).toMatch(/exactly one/);
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', callback_data: 'x', url: 'https://x.y' }]] })).toMatch(
      /exactly one/,
    );
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', callback_data: 'x', pay: true }]] })).toMatch(
      /unknown/,
    );
    expect(replyMarkupProblem({ keyboard: [] })).toMatch(/unknown/);
    expect(replyMarkupProblem({ inline_keyboard: [[]] })).toMatch(/1 to 8/);
    expect(replyMarkupProblem('buttons')).toMatch(/object/);
    expect(replyMarkupProblem({ inline_keyboard: [[{ text: 'a', url: 'javascript:alert(1)' }]] })).toMatch(/URL/);
  });
});
