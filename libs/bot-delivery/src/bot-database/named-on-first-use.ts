import { namedStatement, NamedStatement } from '@app/platform';

/**
 * A named statement whose text is built when it first runs, not when its module loads. The stores of
 * `webhook_deliveries` and `updates` splice each other's fragments (an Update is written with its
 * delivery; a delivered Update is confirmed), so each module imports the other: a text built at load
 * time would call a fragment of a module that has not finished loading.
 */
export function namedOnFirstUse(name: string, build: () => string): NamedStatement {
  let statement: NamedStatement | undefined;
  return Object.freeze({
    name,
    get text(): string {
      statement ??= namedStatement(name, build());
      return statement.text;
    },
  });
}
