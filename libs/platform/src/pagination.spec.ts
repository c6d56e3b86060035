import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { MAX_PAGE, PageQueryDto, pageAnswer, pageWindow } from './pagination';

const problemsOf = (query: Record<string, string>) =>
  validateSync(plainToInstance(PageQueryDto, query)).map((error) => error.property);

describe('pagination', () => {
  it('reads page 1 of 20 when the query names neither, and the route default when it has one', () => {
    expect(pageWindow({})).toEqual({ page: 1, pageSize: 20, offset: 0 });
    expect(pageWindow({}, 50)).toEqual({ page: 1, pageSize: 50, offset: 0 });
  });

  it('skips (page - 1) × pageSize rows', () => {
    expect(pageWindow({ page: 3, pageSize: 25 })).toEqual({ page: 3, pageSize: 25, offset: 50 });
  });

  it('takes the deprecated limit and page_size as pageSize, and pageSize over both', () => {
    expect(pageWindow({ limit: 7 }).pageSize).toBe(7);
    expect(pageWindow({ page_size: 8 }).pageSize).toBe(8);
    expect(pageWindow({ limit: 7, page_size: 8, pageSize: 9 }).pageSize).toBe(9);
  });

  it('answers items, total, page and pageSize only', () => {
    expect(pageAnswer(['a'], 3, pageWindow({ page: 2, limit: 1 }))).toEqual({
      items: ['a'],
      total: 3,
      page: 2,
      pageSize: 1,
    });
  });

  it('refuses a page past MAX_PAGE, including ones JavaScript reads as huge integers', () => {
    expect(problemsOf({ page: String(MAX_PAGE) })).toEqual([]);
    for (const page of ['1e308', '99999999999999999999', String(MAX_PAGE + 1), '0', '-1', '1.5', 'x']) {
      expect({ page, problems: problemsOf({ page }) }).toEqual({ page, problems: ['page'] });
    }
  });

  it('refuses a page size outside 1..100 under any of its names', () => {
    for (const name of ['pageSize', 'limit', 'page_size']) {
      expect(problemsOf({ [name]: '100' })).toEqual([]);
      expect(problemsOf({ [name]: '101' })).toEqual([name]);
      expect(problemsOf({ [name]: '0' })).toEqual([name]);
    }
  });
});
