import { checkEntities, EntityParseError, FormattedText, parseFormatted, ParseMode } from '@app/telegram-shapes';
import { BotErrors } from '../bot-errors';

/** How a text arrives: as written, with `parse_mode` markup, or with its formatting `entities` given. */
export interface TextFormatting {
  parse_mode?: ParseMode;
  entities?: unknown[];
}

/**
 * The stored text and formatting of a send or edit: markup parsed as Telegram parses it, or given
 * entities checked against the text. `max` counts the text after parsing, as Telegram counts it.
 * Malformed markup answers VALIDATION with Telegram's wording after `Can't parse entities: `.
 */
export function formattedText(raw: string, formatting: TextFormatting, max: number, what = 'text'): FormattedText {
  if (formatting.parse_mode !== undefined && formatting.entities !== undefined) {
    throw BotErrors.invalid('Give parse_mode or entities, not both');
  }
  let result: FormattedText;
  try {
    result = formatting.parse_mode
      ? parseFormatted(raw, formatting.parse_mode)
      : { text: raw, entities: formatting.entities ? checkEntities(raw, formatting.entities) : [] };
  } catch (error) {
    if (error instanceof EntityParseError) throw BotErrors.invalid(`Can't parse entities: ${error.message}`);
    throw error;
  }
  if (result.text.length > max) {
    // Telegram's wording ("message is too long", "message caption is too long"), with the limit.
    const subject = what === 'caption' ? 'Message caption' : 'Message';
    throw BotErrors.invalid(`${subject} is too long: at most ${max} characters after parsing`);
  }
  return result;
}

/** A message text must keep something after parsing. */
export function nonEmptyText(formatted: FormattedText): FormattedText {
  if (formatted.text.trim() === '') throw BotErrors.invalid('Message text is empty');
  return formatted;
}
