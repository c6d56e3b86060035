import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type as TransformTo } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * The highest page a list answers. `page` arrives as text, and `1e308` or twenty nines are integers to
 * JavaScript: without a bound the OFFSET they produce overflows PostgreSQL's bigint and the query fails
 * with a 500. 100,000 pages of 100 is ten million rows, beyond any list either service keeps.
 */
export const MAX_PAGE = 100_000;
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 20;

/** The query of a list: `page` and `pageSize`. */
export interface PageQuery {
  page?: number;
  pageSize?: number;
  /** @deprecated the old voucher-service name of `pageSize` */
  limit?: number;
  /** @deprecated the old snake_case name of `pageSize` */
  page_size?: number;
}

function pageSizeDoc(defaultPageSize: number, deprecatedFor?: string) {
  return {
    type: 'integer' as const,
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    ...(deprecatedFor
      ? { deprecated: true, description: `Deprecated: use ${deprecatedFor}. Accepted for one release; pageSize wins.` }
      : { default: defaultPageSize, description: 'Items per page' }),
  };
}

/**
 * The query DTO of lists whose page size defaults to `defaultPageSize`. Besides `page` and `pageSize`
 * it still accepts the deprecated `limit` and `page_size` for one release, so clients of either old
 * scheme keep working while they move; answers use the new names only.
 */
export function PageQueryOf(defaultPageSize: number): Type<PageQuery> {
  class PageQueryDto implements PageQuery {
    @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: MAX_PAGE, default: 1, description: 'From 1' })
    @IsOptional()
    @TransformTo(() => Number)
    @IsInt()
    @Min(1)
    @Max(MAX_PAGE)
    page?: number;

    @ApiPropertyOptional(pageSizeDoc(defaultPageSize))
    @IsOptional()
    @TransformTo(() => Number)
    @IsInt()
    @Min(1)
    @Max(MAX_PAGE_SIZE)
    pageSize?: number;

    @ApiPropertyOptional(pageSizeDoc(defaultPageSize, 'pageSize'))
    @IsOptional()
    @TransformTo(() => Number)
    @IsInt()
    @Min(1)
    @Max(MAX_PAGE_SIZE)
    limit?: number;

    @ApiPropertyOptional(pageSizeDoc(defaultPageSize, 'pageSize'))
    @IsOptional()
    @TransformTo(() => Number)
    @IsInt()
    @Min(1)
    @Max(MAX_PAGE_SIZE)
    page_size?: number;
  }
  return PageQueryDto;
}

/** The query of a list with the usual page size. */
export class PageQueryDto extends PageQueryOf(DEFAULT_PAGE_SIZE) {}

/** The page a query asks for, with the rows to skip: the LIMIT and OFFSET of its SQL. */
export interface PageWindow {
  page: number;
  pageSize: number;
  offset: number;
}

export function pageWindow(query: PageQuery, defaultPageSize = DEFAULT_PAGE_SIZE): PageWindow {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? query.page_size ?? query.limit ?? defaultPageSize;
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/** The one answer of every list. */
export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

export function pageAnswer<T>(items: T[], total: number, window: PageWindow): Page<T> {
  return { items, total, page: window.page, pageSize: window.pageSize };
}

/**
 * The documented page of `item`s, e.g. `class BotPage extends PageOf(BotView) {}`: generic types leave no
 * trace at run time, so each page is a class of its own whose `items` the document types as `item`.
 */
export function PageOf<T>(item: Type<T>): Type<Page<T>> {
  class PageOfItems implements Page<T> {
    @ApiProperty({ type: [item] })
    items: T[];

    @ApiProperty({ type: 'integer', minimum: 0, description: 'Items on all pages together' })
    total: number;

    @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE, description: 'The page returned, from 1' })
    page: number;

    @ApiProperty({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Items per page' })
    pageSize: number;
  }
  return PageOfItems;
}
