import { ApiError } from '@app/envelope';
import { BotIdPipe } from './bot-id.pipe';

describe('BotIdPipe', () => {
  const pipe = new BotIdPipe();

  it('passes 24 lowercase hexadecimal characters through', () => {
    expect(pipe.transform('0123456789abcdef01234567')).toBe('0123456789abcdef01234567');
  });

  it.each([
    '0123456789ABCDEF01234567',
    '0123456789abcdef0123456',
    '0123456789abcdef012345678',
    'g123456789abcdef01234567',
  ])('refuses %s with a 400 naming botId', (value) => {
    let caught: unknown;
    try {
      pipe.transform(value);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ApiError);
    expect(caught).toMatchObject({ status: 400, details: [{ field: 'botId', problem: expect.any(String) }] });
  });
});
