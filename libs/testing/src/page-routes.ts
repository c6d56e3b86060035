import type { OpenAPIObject } from '@nestjs/swagger';

interface SchemaNode {
  $ref?: string;
  allOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  required?: string[];
  type?: string;
}

export interface PagedListRoute {
  /** OpenAPI form: `/api/v1/bots/my/{botId}/deliveries`. */
  path: string;
  /** The schema of the route's `data`, e.g. `BotPage`. */
  schemaName: string;
  /** Names of the route's query parameters. */
  query: string[];
}

const schemaNameOf = (ref: string) => ref.replace('#/components/schemas/', '');

/**
 * Every GET operation whose `data` is a numbered page, i.e. an object with an `items` array and no
 * `next_cursor`: the list routes,
 * found from the document, so a list added later is walked without anyone remembering to add it.
 */
export function pagedListRoutes(document: OpenAPIObject): PagedListRoute[] {
  const schemas = (document.components?.schemas ?? {}) as Record<string, SchemaNode>;
  return Object.entries(document.paths).flatMap(([path, item]) => {
    const get = item.get;
    const ok = get?.responses?.['200'] as { content?: Record<string, { schema?: SchemaNode }> } | undefined;
    const schema = ok?.content?.['application/json']?.schema;
    const dataRef = schema?.allOf?.find((part) => part.properties?.data)?.properties?.data?.$ref;
    if (!get || !dataRef) return [];
    const schemaName = schemaNameOf(dataRef);
    if (schemas[schemaName]?.properties?.items?.type !== 'array') return [];
    // Keyset lists (`next_cursor`, e.g. the platform-wide staff delivery log) page by cursor, not by number.
    if (schemas[schemaName]?.properties?.next_cursor) return [];
    const query = (get.parameters ?? []).flatMap((p) => ('in' in p && p.in === 'query' ? [p.name] : []));
    return [{ path, schemaName, query }];
  });
}

/** The documented page: `items`, `total`, `page` and `pageSize`, all required, and no old field names. */
export function expectDocumentedPage(document: OpenAPIObject, route: PagedListRoute): void {
  const schema = (document.components?.schemas ?? {})[route.schemaName] as SchemaNode;
  const fields = Object.keys(schema.properties ?? {});
  expect({ route: route.path, fields, required: schema.required }).toEqual({
    route: route.path,
    fields: expect.arrayContaining(['items', 'total', 'page', 'pageSize']),
    required: expect.arrayContaining(['items', 'total', 'page', 'pageSize']),
  });
  expect({ route: route.path, old: fields.filter((f) => ['limit', 'page_size'].includes(f)) }).toEqual({
    route: route.path,
    old: [],
  });
  expect({ route: route.path, query: route.query }).toEqual({
    route: route.path,
    query: expect.arrayContaining(['page', 'pageSize']),
  });
}

/** An answered page: the one shape, with the page and size asked for and no old field names. */
export function expectPageAnswer(data: unknown, page: number, pageSize: number): void {
  expect(data).toEqual(
    expect.objectContaining({ items: expect.any(Array), total: expect.any(Number), page, pageSize }),
  );
  const fields = Object.keys(data as object);
  expect(fields).not.toContain('page_size');
  expect(fields).not.toContain('limit');
  expect((data as { items: unknown[] }).items.length).toBeLessThanOrEqual(pageSize);
}

/** Query strings that must get 400 on every list (the overflowing pages of the black-box sweep among them). */
export const OUT_OF_RANGE_PAGE_QUERIES = [
  'page=1e308',
  'page=99999999999999999999',
  'page=100001',
  'page=0',
  'page=-1',
  'page=1.5',
  'page=abc',
  'pageSize=101',
  'pageSize=0',
  'limit=101',
  'page_size=101',
] as const;
