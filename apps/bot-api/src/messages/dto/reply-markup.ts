import { registerDecorator, ValidationOptions } from 'class-validator';

export interface InlineKeyboardButton {
  text: string;
  callback_data?: string;
  url?: string;
}

export interface ReplyMarkup {
  inline_keyboard: InlineKeyboardButton[][];
}

export const CALLBACK_DATA_MAX_BYTES = 64;
const MAX_ROWS = 100;
const MAX_BUTTONS_PER_ROW = 8;
const BUTTON_TEXT_MAX = 128;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function buttonProblem(button: unknown, where: string): string | null {
  if (!isPlainObject(button)) return `${where} must be an object`;
  const unknown = Object.keys(button).filter((key) => !['text', 'callback_data', 'url'].includes(key));
  if (unknown.length > 0) return `${where} has unknown fields: ${unknown.join(', ')}`;
  const { text, callback_data: data, url } = button;
  if (typeof text !== 'string' || text.length < 1 || text.length > BUTTON_TEXT_MAX) {
    return `${where}.text must be a string of 1 to ${BUTTON_TEXT_MAX} characters`;
  }
  if ((data === undefined) === (url === undefined)) return `${where} needs exactly one of callback_data or url`;
  if (data !== undefined) {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : 0;
    if (typeof data !== 'string' || bytes < 1 || bytes > CALLBACK_DATA_MAX_BYTES) {
      return `${where}.callback_data must be 1 to ${CALLBACK_DATA_MAX_BYTES} bytes`;
    }
  }
  if (url !== undefined && (typeof url !== 'string' || !/^https?:\/\/\S+$/i.test(url) || url.length > 2048)) {
    return `${where}.url must be an http(s) URL`;
  }
  return null;
}

/** Why a reply_markup value is invalid, or null when it is a well-formed inline keyboard. */
export function replyMarkupProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'reply_markup must be an object';
  const extra = Object.keys(value).filter((key) => key !== 'inline_keyboard');
  if (extra.length > 0) return `reply_markup has unknown fields: ${extra.join(', ')}`;
  const rows = value.inline_keyboard;
  if (!Array.isArray(rows) || rows.length > MAX_ROWS) {
    return `reply_markup.inline_keyboard must be an array of at most ${MAX_ROWS} rows`;
  }
  for (const [r, row] of rows.entries()) {
    if (!Array.isArray(row) || row.length < 1 || row.length > MAX_BUTTONS_PER_ROW) {
      return `reply_markup.inline_keyboard[${r}] must hold 1 to ${MAX_BUTTONS_PER_ROW} buttons`;
    }
    for (const [b, button] of row.entries()) {
      const problem = buttonProblem(button, `reply_markup.inline_keyboard[${r}][${b}]`);
      if (problem) return problem;
    }
  }
  return null;
}

/** `{ inline_keyboard: [[{ text, callback_data? , url? }]] }`; `allowNull` lets null clear the buttons. */
export function IsReplyMarkup(options: ValidationOptions & { allowNull?: boolean } = {}): PropertyDecorator {
  return (target, propertyName) => {
    registerDecorator({
      name: 'isReplyMarkup',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => (value === null && options.allowNull) || replyMarkupProblem(value) === null,
        defaultMessage: (args) => replyMarkupProblem(args?.value) ?? 'reply_markup is invalid',
      },
    });
  };
}
