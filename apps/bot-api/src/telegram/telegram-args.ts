import { TelegramError } from './telegram-errors';
import type { ParsedCall, UploadedPart } from './telegram-params';

/** Telegram's answer to a call without a parameter the method needs. */
function missing(name: string): TelegramError {
  return TelegramError.badRequest(`parameter ${name} is required`);
}

/** A chat as a Telegram call names it: an integer id or an `@username`. */
export type ChatRef = { id: number } | { username: string };

/** An InputFile: an existing file_id, or bytes uploaded with the call. */
export type InputFileRef = { fileId: string } | { upload: UploadedPart };

/**
 * Typed reads of one call's parameters. Form encodings carry everything as strings and JSON-serialised
 * objects, JSON bodies carry real types; each read accepts both, as Telegram does. Parameters a method
 * does not read are ignored, as Telegram ignores them; none of them reaches a native service.
 */
export class TelegramArgs {
  constructor(private readonly call: Pick<ParsedCall, 'values' | 'parts'>) {}

  has(name: string): boolean {
    const value = this.call.values[name];
    return value !== undefined && value !== null && value !== '';
  }

  string(name: string): string | undefined {
    const value = this.call.values[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw TelegramError.badRequest(`parameter ${name} must be a string`);
  }

  requiredString(name: string): string {
    const value = this.string(name);
    if (value === undefined || value === '') throw missing(name);
    return value;
  }

  int(name: string): number | undefined {
    const value = this.call.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    const number =
      typeof value === 'number'
        ? value
        : typeof value === 'string' && /^-?\d+$/.test(value.trim())
          ? Number(value)
          : NaN;
    if (!Number.isSafeInteger(number)) throw TelegramError.badRequest(`parameter ${name} must be an integer`);
    return number;
  }

  requiredInt(name: string): number {
    const value = this.int(name);
    if (value === undefined) throw missing(name);
    return value;
  }

  number(name: string): number | undefined {
    const value = this.call.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
    if (!Number.isFinite(number)) throw TelegramError.badRequest(`parameter ${name} must be a number`);
    return number;
  }

  requiredNumber(name: string): number {
    const value = this.number(name);
    if (value === undefined) throw missing(name);
    return value;
  }

  bool(name: string): boolean | undefined {
    const value = this.call.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === '1' || value === 1) return true;
    if (value === 'false' || value === '0' || value === 0) return false;
    throw TelegramError.badRequest(`parameter ${name} must be a Boolean`);
  }

  /** An object or array, given as JSON or as a JSON-serialised string (how forms carry them). */
  json(name: string, what = `${name} JSON object`): unknown {
    const value = this.call.values[name];
    if (value === undefined || value === null || value === '') return undefined;
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw TelegramError.badRequest(`can't parse ${what}`);
    }
  }

  chat(name = 'chat_id'): ChatRef {
    const value = this.call.values[name];
    if (typeof value === 'string' && value.startsWith('@') && value.length > 1) return { username: value.slice(1) };
    const id = this.int(name);
    if (id === undefined) throw missing(name);
    return { id };
  }

  /** An InputFile: a file_id string, `attach://<part>` or a part named like the parameter itself. */
  inputFile(name: string): InputFileRef | undefined {
    const part = this.call.parts.get(name);
    if (part) return { upload: part };
    const value = this.string(name);
    if (value === undefined || value === '') return undefined;
    return this.fileRef(value, name);
  }

  /** A media item's `media` field (sendMediaGroup): a file_id or an `attach://` reference. */
  fileRef(value: string, name: string): InputFileRef {
    if (value.startsWith('attach://')) {
      const attached = this.call.parts.get(value.slice('attach://'.length));
      if (!attached) throw TelegramError.badRequest(`file part ${value} of ${name} was not sent`);
      return { upload: attached };
    }
    if (/^https?:\/\//i.test(value)) {
      throw TelegramError.badRequest(
        `${name}: sending files by URL is not supported; upload the file or give a file_id`,
      );
    }
    return { fileId: value };
  }
}
