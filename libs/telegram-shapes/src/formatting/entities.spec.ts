import {
  byteOffset,
  compareEntities,
  EntityParseError,
  MessageEntity,
  normalizeEntities,
  normalizeUrl,
  sortEntities,
  trimFormatted,
} from './entities';

const e = (type: MessageEntity['type'], offset: number, length: number): MessageEntity => ({ type, offset, length });

describe('normalizeUrl', () => {
  it('keeps http, https, ftp and tg links, and gives a bare host http://', () => {
    expect(normalizeUrl('https://example.com/a?b=c')).toBe('https://example.com/a?b=c');
    expect(normalizeUrl('HTTP://Example.com')).toBe('HTTP://Example.com');
    expect(normalizeUrl('ftp://files.example.com/x')).toBe('ftp://files.example.com/x');
    expect(normalizeUrl('example.com/path')).toBe('http://example.com/path');
    // A colon further on is no scheme: only one that starts the link is.
    expect(normalizeUrl('example.com/a:b')).toBe('http://example.com/a:b');
    expect(normalizeUrl('  https://example.com  ')).toBe('https://example.com');
    expect(normalizeUrl('tg://resolve?domain=news')).toBe('tg://resolve?domain=news');
    expect(normalizeUrl('TG://user?id=1')).toBe('TG://user?id=1');
  });

  it('refuses hostile and other schemes, however the rest of the link looks', () => {
    for (const url of [
      'javascript://example.com/%0Aalert(1)',
      'javascript:alert(1)',
      'JavaScript://example.com',
      'data://example.com/text/html,x',
      'file://example.com/etc/passwd',
      'mailto:someone@example.com',
      'xtg://resolve?domain=news',
      'javascript:tg://resolve',
      'tg://',
    ]) {
      expect(normalizeUrl(url)).toBeNull();
    }
  });

  it('refuses an empty link, white space inside one, a host without a dot and a link it cannot read', () => {
    for (const url of [
      '',
      '   ',
      'https://exa mple.com',
      'https://example.com/\tx',
      'localhost',
      'http://[::1]/',
      'http://',
    ]) {
      expect(normalizeUrl(url)).toBeNull();
    }
  });

  it('takes links of up to 2048 characters', () => {
    const base = 'https://example.com/';
    expect(normalizeUrl(base + 'a'.repeat(2048 - base.length))).toHaveLength(2048);
    expect(normalizeUrl(base + 'a'.repeat(2049 - base.length))).toBeNull();
  });
});

describe('entity order and normalisation', () => {
  it('sorts by offset, then the longer first, then in the order of the entity types', () => {
    const sorted = sortEntities([e('italic', 2, 1), e('bold', 0, 1), e('italic', 0, 3), e('bold', 0, 3)]);
    expect(sorted).toEqual([e('bold', 0, 3), e('italic', 0, 3), e('bold', 0, 1), e('italic', 2, 1)]);
    expect(compareEntities(e('bold', 0, 1), e('bold', 0, 1))).toBe(0);
    expect(compareEntities(e('url', 0, 1), e('bold', 0, 1))).toBeGreaterThan(0);
  });

  it('drops empty entities and everything inside code or pre (an equal span included), the code itself kept', () => {
    expect(
      normalizeEntities([e('bold', 0, 0), e('code', 0, 4), e('bold', 1, 2), e('italic', 0, 5), e('bold', 4, 2)]),
    ).toEqual([e('italic', 0, 5), e('code', 0, 4), e('bold', 4, 2)]);
    expect(normalizeEntities([e('pre', 2, 5), e('bold', 3, 4), e('url', 2, 5), e('bold', 6, 2)])).toEqual([
      e('pre', 2, 5),
      e('bold', 6, 2),
    ]);
  });

  it('drops an empty entity that nothing contains', () => {
    expect(normalizeEntities([e('bold', 3, 0), e('italic', 0, 2)])).toEqual([e('italic', 0, 2)]);
  });

  it('keeps a lone code entity of one character at the start: nothing else contains it', () => {
    expect(normalizeEntities([e('code', 0, 1), e('bold', 1, 1)])).toEqual([e('code', 0, 1), e('bold', 1, 1)]);
  });

  it('judges an entity by the code that reaches furthest, not by a shorter one that starts with it', () => {
    expect(normalizeEntities([e('code', 0, 2), e('code', 0, 5), e('bold', 3, 1)])).toEqual([e('code', 0, 5)]);
  });

  it('takes two code entities over one span as each inside the other: neither is kept', () => {
    expect(normalizeEntities([e('code', 0, 5), e('code', 0, 5), e('bold', 6, 1)])).toEqual([e('bold', 6, 1)]);
  });

  it('does not nest quotes: a quote inside another is dropped, one beside it kept', () => {
    expect(
      normalizeEntities([
        e('blockquote', 0, 10),
        e('expandable_blockquote', 2, 3),
        e('blockquote', 10, 2),
        e('bold', 2, 3),
      ]),
    ).toEqual([e('blockquote', 0, 10), e('bold', 2, 3), e('blockquote', 10, 2)]);
  });

  it('looks at every group member that starts before an entity, the furthest end deciding', () => {
    // The code at 0..2 ends early; the one at 1..9 reaches past the bold at 5..7.
    expect(normalizeEntities([e('code', 0, 2), e('code', 1, 8), e('bold', 5, 2), e('bold', 9, 1)])).toEqual([
      e('code', 0, 2),
      e('code', 1, 8),
      e('bold', 9, 1),
    ]);
  });
});

describe('trimFormatted', () => {
  it('trims the text and moves and cuts the entities with it, dropping those left empty', () => {
    expect(
      trimFormatted({
        text: '  ab cd  ',
        entities: [e('bold', 0, 4), e('italic', 5, 4), e('code', 0, 2), e('url', 7, 2)],
      }),
    ).toEqual({
      text: 'ab cd',
      entities: [e('bold', 0, 2), e('italic', 3, 2)],
    });
  });
});

describe('EntityParseError', () => {
  it('names itself, so that callers and logs tell it from other errors', () => {
    expect(new EntityParseError('x')).toMatchObject({ name: 'EntityParseError', message: 'x' });
  });
});

describe('byteOffset', () => {
  it('counts UTF-8 bytes up to a string index', () => {
    expect(byteOffset('aé😀b', 0)).toBe(0);
    expect(byteOffset('aé😀b', 2)).toBe(3);
    expect(byteOffset('aé😀b', 4)).toBe(7);
  });
});
