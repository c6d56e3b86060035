export interface FieldProblem {
  field: string;
  problem: string;
}

/**
 * The one error type services throw. `code` is the business code an integrator branches on;
 * when omitted, the envelope style picks its default code for the status (e.g. 404 → NOT_FOUND).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
    readonly details?: FieldProblem[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static badRequest(message: string, details?: FieldProblem[]): ApiError {
    return new ApiError(400, undefined, message, details);
  }

  static notFound(what = 'Resource'): ApiError {
    return new ApiError(404, undefined, `${what} not found`);
  }

  static conflict(code: string, message: string): ApiError {
    return new ApiError(409, code, message);
  }
}
