import { ApiError } from '@app/envelope';
import { parseInlineResults } from './inline-results';

const article = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'article',
  id,
  title: `Title ${id}`,
  input_message_content: { message_text: `Text ${id}` },
  ...extra,
});

function refusal(results: unknown[]): ApiError {
  try {
    parseInlineResults(results);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('the results were accepted');
}

describe('parseInlineResults', () => {
  it('accepts article results with an InputTextMessageContent', () => {
    const results = [
      article('a'),
      article('b', { description: 'd', input_message_content: { message_text: 'x', parse_mode: 'HTML' } }),
    ];
    expect(parseInlineResults(results)).toEqual(results);
  });

  it('refuses a non-article result, naming its index and id', () => {
    const error = refusal([article('a'), { type: 'photo', id: 'p1', photo_url: 'https://x.test/p.jpg' }]);
    expect(error.status).toBe(400);
    expect(error.message).toBe('results[1] (id "p1"): type: only "article" results are supported');
    expect(error.details).toEqual([{ field: 'results[1].type', problem: 'only "article" results are supported' }]);
  });

  it('refuses message content other than InputTextMessageContent', () => {
    const error = refusal([article('a', { input_message_content: { latitude: 1, longitude: 2 } })]);
    expect(error.message).toContain('results[0] (id "a"): input_message_content.latitude');
  });

  it('refuses duplicate ids, fields an article does not have and a bad parse_mode', () => {
    expect(refusal([article('a'), article('a')]).message).toBe(
      'results[1] (id "a"): id: is not unique among the results',
    );
    expect(refusal([article('a', { photo_url: 'https://x.test' })]).message).toContain('photo_url');
    expect(
      refusal([article('a', { input_message_content: { message_text: 'x', parse_mode: 'BBCode' } })]).message,
    ).toContain('parse_mode');
  });

  it('refuses a result without a usable id, and more than 50 results', () => {
    expect(refusal([{ type: 'article', title: 't' }]).message).toBe(
      'results[0]: id: must be a string of 1 to 64 bytes',
    );
    expect(refusal(Array.from({ length: 51 }, (_, i) => article(`r${i}`))).status).toBe(400);
  });
});
