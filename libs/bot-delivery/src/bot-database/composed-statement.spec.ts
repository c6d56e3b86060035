import { composedStatement, Placeholders } from './composed-statement';

interface Pair {
  left: number;
  right: string;
}

/** A fragment in another module would be written like this: it names the parameters it needs. */
const rightSql = (p: Placeholders<Pick<Pair, 'right'>>): string => `${p.right}::text`;

describe('composedStatement', () => {
  it('numbers the parameters where the text first names them, and orders the values to match', () => {
    const statement = composedStatement<Pair>(
      'test.composed.pair',
      (p) => `SELECT ${rightSql(p)}, ${p.left}::int, ${p.left}::int + 1`,
    );
    expect(statement.text).toBe('SELECT $1::text, $2::int, $2::int + 1');
    expect(statement.values({ left: 7, right: 'r' })).toEqual(['r', 7]);
  });

  it('binds a parameter no fragment names to nothing', () => {
    const statement = composedStatement<Pair>('test.composed.unused', (p) => `SELECT ${p.left}::int`);
    expect(statement.values({ left: 1, right: 'unused' })).toEqual([1]);
  });

  it('refuses a call that leaves out a parameter the text names, instead of binding NULL', () => {
    const statement = composedStatement<Pair>('test.composed.missing', (p) => `SELECT ${p.left}, ${p.right}`);
    expect(() => statement.values({ left: 1 } as Pair)).toThrow(
      'statement "test.composed.missing" needs parameter "right"',
    );
  });
});
