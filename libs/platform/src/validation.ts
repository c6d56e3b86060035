import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError, FieldProblem } from '@app/envelope';

function problems(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.entries(error.constraints ?? {}).map(([rule, message]) => ({
      field,
      problem: rule === 'whitelistValidation' ? 'is not a known field' : message,
    }));
    return [...own, ...problems(error.children ?? [], field)];
  });
}

/** A body of ten thousand bad elements gets the first problems, not a quarter-megabyte answer. */
export const MAX_LISTED_PROBLEMS = 20;

/** The 400 of a validation failure: every problem counted, the first MAX_LISTED_PROBLEMS listed. */
export function validationFailure(details: FieldProblem[]): ApiError {
  const listed = details.slice(0, MAX_LISTED_PROBLEMS);
  const more = details.length - listed.length;
  const summary = listed.map((d) => `${d.field}: ${d.problem}`).join('; ') + (more > 0 ? `; and ${more} more` : '');
  return ApiError.badRequest(`Validation failed: ${summary}`, listed);
}

/** Unknown fields are refused, not stripped: a stray `application_id` must never be silently ignored. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailure(problems(errors)),
  });
}
