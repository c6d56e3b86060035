import { nulPath } from './reject-nul';

describe('NUL character detection', () => {
  it('finds a NUL character anywhere in nested input and names its path', () => {
    expect(nulPath({ text: 'a\u0000b' }, 'body')).toBe('body.text');
    expect(nulPath({ media: [{ caption: 'ok' }, { caption: '\u0000' }] }, 'body')).toBe('body.media[1].caption');
    expect(nulPath({ ['k\u0000']: 1 }, 'query')).toBe('query');
  });

  it('accepts ordinary input', () => {
    expect(nulPath({ text: 'hello', n: 1, list: ['a', null, true] }, 'body')).toBeNull();
    expect(nulPath(undefined, 'body')).toBeNull();
  });

  it('defect 8: finds a NUL character at any depth, not only in the first 32 levels', () => {
    let nested: unknown = { text: 'a\u0000b' };
    for (let level = 0; level < 40; level++) nested = { inner: nested };
    expect(nulPath(nested, 'body')).toBe(`body${'.inner'.repeat(40)}.text`);
  });
});
