import { namedStatement, NamedStatement } from '@app/platform';

/**
 * The placeholders of a statement's parameters by name, handed to the fragments it splices: a fragment
 * writes `${p.update_ids}`, never `$15`, so adding a parameter to one fragment shifts nothing in another.
 */
export type Placeholders<Params> = { readonly [Name in keyof Params]: string };

/** A named prepared statement whose parameters are named; it numbers them itself. */
export interface ComposedStatement<Params> extends NamedStatement {
  /** The parameter values in the statement's own numbering. */
  values(params: Params): unknown[];
}

/**
 * Declares a named statement built from fragments that refer to its parameters by name. `build` runs
 * once, at declaration: each parameter gets its number (`$1`, `$2`, …) where the text first names it,
 * so the text is fixed and prepared once per connection, and `values` orders a call's values to match.
 */
export function composedStatement<Params extends object>(
  name: string,
  build: (p: Placeholders<Params>) => string,
): ComposedStatement<Params> {
  const order: Array<keyof Params> = [];
  const placeholders = new Proxy({} as Placeholders<Params>, {
    get(_, parameter) {
      if (typeof parameter !== 'string') throw new Error(`statement "${name}" names a parameter that is no string`);
      let index = order.indexOf(parameter as keyof Params);
      if (index < 0) index = order.push(parameter as keyof Params) - 1;
      return `$${index + 1}`;
    },
  });
  const statement = namedStatement(name, build(placeholders));
  return Object.freeze({
    name: statement.name,
    text: statement.text,
    values: (params: Params): unknown[] =>
      order.map((parameter) => {
        const value = params[parameter];
        // A parameter the text names but the call leaves out would be bound as NULL without a word.
        if (value === undefined) throw new Error(`statement "${name}" needs parameter "${String(parameter)}"`);
        return value;
      }),
  });
}
