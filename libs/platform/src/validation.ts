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

/** Unknown fields are refused, not stripped: a stray `application_id` must never be silently ignored. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => {
      const details = problems(errors);
      const summary = details.map((d) => `${d.field}: ${d.problem}`).join('; ');
      return new ApiError(400, undefined, `Validation failed: ${summary}`, details);
    },
  });
}
