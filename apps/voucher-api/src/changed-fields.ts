import { isDeepStrictEqual } from 'node:util';

/** The fields of `changes` whose value differs from the record's: an edit that changes nothing writes nothing. */
export function changedFields<R extends object, C extends Partial<R>>(record: R, changes: C): Partial<C> {
  return Object.fromEntries(
    Object.entries(changes).filter(
      ([field, value]) => value !== undefined && !isDeepStrictEqual(value, record[field as keyof R]),
    ),
  ) as Partial<C>;
}
