import { BotErrors } from '../bot-errors';

export const INLINE_RESULTS_MAX = 50;
export const INLINE_RESULT_ID_MAX_BYTES = 64;
export const PARSE_MODES = ['Markdown', 'MarkdownV2', 'HTML'] as const;
const MESSAGE_TEXT_MAX = 4096;
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 512;
const URL_MAX = 2048;

export interface InputTextMessageContent {
  message_text: string;
  parse_mode?: (typeof PARSE_MODES)[number];
}

/** The one result type answerInlineQuery takes (spec 4.2, "Interaction"). */
export interface InlineQueryResultArticle {
  type: 'article';
  id: string;
  title: string;
  input_message_content: InputTextMessageContent;
  description?: string;
  url?: string;
  thumbnail_url?: string;
}

const ARTICLE_FIELDS = ['type', 'id', 'title', 'input_message_content', 'description', 'url', 'thumbnail_url'];
const CONTENT_FIELDS = ['message_text', 'parse_mode'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isHttpsUrl(value: unknown): boolean {
  return typeof value === 'string' && value.length <= URL_MAX && /^https:\/\/\S+$/i.test(value);
}

function optionalString(value: unknown, max: number): boolean {
  return value === undefined || (typeof value === 'string' && value.length <= max);
}

/** What is wrong with one result, as `field: problem`, or null when it is a valid article. */
function articleProblem(result: Record<string, unknown>): [string, string] | null {
  if (result.type !== 'article') return ['type', 'only "article" results are supported'];
  const unknown = Object.keys(result).filter((key) => !ARTICLE_FIELDS.includes(key));
  if (unknown.length > 0) return [unknown[0], 'is not a field of an article result'];
  if (typeof result.title !== 'string' || result.title.length < 1 || result.title.length > TITLE_MAX) {
    return ['title', `must be a string of 1 to ${TITLE_MAX} characters`];
  }
  if (!optionalString(result.description, DESCRIPTION_MAX)) {
    return ['description', `must be a string of at most ${DESCRIPTION_MAX} characters`];
  }
  for (const field of ['url', 'thumbnail_url']) {
    if (result[field] !== undefined && !isHttpsUrl(result[field])) return [field, 'must be an HTTPS URL'];
  }
  const content = result.input_message_content;
  if (!isPlainObject(content)) return ['input_message_content', 'must be an InputTextMessageContent object'];
  const extra = Object.keys(content).filter((key) => !CONTENT_FIELDS.includes(key));
  if (extra.length > 0) {
    return [
      `input_message_content.${extra[0]}`,
      'only InputTextMessageContent (message_text, parse_mode) is supported',
    ];
  }
  const text = content.message_text;
  if (typeof text !== 'string' || text.length < 1 || text.length > MESSAGE_TEXT_MAX) {
    return ['input_message_content.message_text', `must be a string of 1 to ${MESSAGE_TEXT_MAX} characters`];
  }
  if (content.parse_mode !== undefined && !PARSE_MODES.includes(content.parse_mode as never)) {
    return ['input_message_content.parse_mode', `must be one of ${PARSE_MODES.join(', ')}`];
  }
  return null;
}

/**
 * The results of answerInlineQuery as stored and shown to the user. The first offending result is
 * refused with 400 VALIDATION naming its index and id, e.g. `results[2] (id "b"): type: only
 * "article" results are supported`.
 */
export function parseInlineResults(results: readonly unknown[]): InlineQueryResultArticle[] {
  if (results.length > INLINE_RESULTS_MAX) {
    throw BotErrors.invalid(`At most ${INLINE_RESULTS_MAX} results`, [
      { field: 'results', problem: `at most ${INLINE_RESULTS_MAX} results` },
    ]);
  }
  const seen = new Set<string>();
  return results.map((result, index) => {
    const refuse = (field: string, problem: string, id?: string): never => {
      const named = id === undefined ? `results[${index}]` : `results[${index}] (id ${JSON.stringify(id)})`;
      throw BotErrors.invalid(`${named}: ${field}: ${problem}`, [{ field: `results[${index}].${field}`, problem }]);
    };
    if (!isPlainObject(result)) return refuse('', 'must be an object');
    const id = result.id;
    if (typeof id !== 'string' || id.length < 1 || Buffer.byteLength(id, 'utf8') > INLINE_RESULT_ID_MAX_BYTES) {
      return refuse('id', `must be a string of 1 to ${INLINE_RESULT_ID_MAX_BYTES} bytes`);
    }
    const problem = articleProblem(result);
    if (problem) return refuse(problem[0], problem[1], id);
    if (seen.has(id)) return refuse('id', 'is not unique among the results', id);
    seen.add(id);
    return result as unknown as InlineQueryResultArticle;
  });
}
