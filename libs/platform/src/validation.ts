import { ValidationError, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { ApiError, FieldProblem } from '@app/envelope';

type MetadataStorage = ReturnType<typeof getMetadataStorage>;
type TargetQuery = Parameters<MetadataStorage['getTargetValidationMetadatas']>;

const CACHED = Symbol('validation-metadata-cached');

/**
 * class-validator looks up a class's rules on every object it validates, and that lookup walks the
 * rules of every decorated class of the process (an `instanceof` test each, for inherited rules):
 * hundreds of DTO classes per validated object in bot-api. The rules are fixed once the classes are
 * loaded, so the answer of each lookup (and its grouping by property) is kept; a rule registered later
 * (a class loaded afterwards) empties the cache. Callers only read the arrays they get.
 */
export function cacheValidationMetadata(storage: MetadataStorage = getMetadataStorage()): void {
  const marked = storage as MetadataStorage & { [CACHED]?: true };
  if (marked[CACHED]) return;
  marked[CACHED] = true;
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  let answers = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  storage.addValidationMetadata = (metadata) => {
    answers = new Map();
    grouped = new WeakMap();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (...query: TargetQuery) => {
    const [target, schema, always, strictGroups, groups] = query;
    const key = `${schema ?? ''}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}`;
    let byOptions = answers.get(target);
    if (!byOptions) answers.set(target, (byOptions = new Map()));
    let answer = byOptions.get(key);
    if (!answer) byOptions.set(key, (answer = lookUp(...query)));
    return answer;
  };
  storage.groupByPropertyName = (metadata) => {
    let answer = grouped.get(metadata);
    if (!answer) grouped.set(metadata, (answer = group(metadata)));
    return answer;
  };
}

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
  cacheValidationMetadata();
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    transform: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailure(problems(errors)),
  });
}
