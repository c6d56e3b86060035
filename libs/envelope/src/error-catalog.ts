import { ApiError, FieldProblem } from './api-error';

export interface ErrorCodeDefinition {
  status: number;
  /** Said when the throw site has nothing more specific to say. */
  message: string;
}

/**
 * The refusals every service shares, most of them made by the framework itself (no route, a body too
 * large, a wrong media type) rather than by a service. Each is the default code of its status.
 */
export const COMMON_ERROR_CODES = {
  UNAUTHORIZED: { status: 401, message: 'Missing, invalid or expired credential' },
  FORBIDDEN: { status: 403, message: 'Not allowed' },
  NOT_FOUND: { status: 404, message: 'Not found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method not allowed' },
  CONFLICT: { status: 409, message: 'Conflict with the current state' },
  GONE: { status: 410, message: 'Gone' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, message: 'Too many requests' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service unavailable' },
} as const satisfies Record<string, ErrorCodeDefinition>;

export type CommonErrorCode = keyof typeof COMMON_ERROR_CODES;

const DEFAULT_CODE_OF_STATUS = new Map<number, string>(
  Object.entries(COMMON_ERROR_CODES).map(([code, definition]) => [definition.status, code]),
);

/** The code a status gets when nothing more specific was thrown: 400 is each service's validation code. */
export function defaultErrorCode(status: number, validationCode: string): string {
  if (status === 400) return validationCode;
  return DEFAULT_CODE_OF_STATUS.get(status) ?? (status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

export interface ErrorOptions {
  details?: FieldProblem[];
  headers?: Record<string, string>;
}

/** An error of a code from a table of codes: how libraries that several services use throw theirs. */
export function codedError<C extends string>(
  codes: Readonly<Record<C, ErrorCodeDefinition>>,
  code: C,
  message?: string,
  options: ErrorOptions = {},
): ApiError {
  const definition = codes[code];
  return new ApiError(definition.status, code, message ?? definition.message, options.details, options.headers);
}

/**
 * One service's registry of every business code it answers, with its HTTP status and default
 * message. Throw sites name a code and never a status; the exception filter and the OpenAPI
 * error responses read statuses from here, so the two cannot drift.
 */
export class ErrorCatalog<C extends string = string> {
  private constructor(
    readonly codes: Readonly<Record<C, ErrorCodeDefinition>>,
    readonly validationCode: C,
  ) {}

  static define<const R extends Record<string, ErrorCodeDefinition>>(
    validationCode: keyof R & string,
    codes: R,
  ): ErrorCatalog<(keyof R & string) | CommonErrorCode> {
    const all = { ...COMMON_ERROR_CODES, ...codes } as Record<
      (keyof R & string) | CommonErrorCode,
      ErrorCodeDefinition
    >;
    for (const [code, definition] of Object.entries<ErrorCodeDefinition>(all)) {
      if (!/^[A-Z][A-Z0-9_]*$/.test(code)) throw new Error(`error code ${code} is not UPPER_SNAKE_CASE`);
      if (definition.status < 400 || definition.status > 599) throw new Error(`error code ${code} has no error status`);
    }
    if (all[validationCode].status !== 400) throw new Error(`validation code ${validationCode} must answer 400`);
    return new ErrorCatalog(all, validationCode);
  }

  has(code: string): code is C {
    return Object.prototype.hasOwnProperty.call(this.codes, code);
  }

  statusOf(code: C): number {
    return this.codes[code].status;
  }

  /** The error to throw: its status comes from the registry, the message defaults to the code's own. */
  error(code: C, message?: string, options: ErrorOptions = {}): ApiError {
    return codedError(this.codes, code, message, options);
  }

  /** 404 in the standard wording for a missing resource the caller may not know exists. */
  notFound(what: string, code: C = 'NOT_FOUND' as C): ApiError {
    return this.error(code, `${what} not found`);
  }

  /** 400 with the validation code and the problems of each field. */
  invalid(message: string, details?: FieldProblem[]): ApiError {
    return this.error(this.validationCode, message, { details });
  }

  defaultCodeFor(status: number): string {
    return defaultErrorCode(status, this.validationCode);
  }
}
