import { checkEntities, EntityParseError, MAX_ENTITIES, MessageEntity, parseFormatted } from './index';

const refusal = (text: string, given: unknown): string => {
  try {
    checkEntities(text, given);
  } catch (error) {
    expect(error).toBeInstanceOf(EntityParseError);
    return (error as Error).message;
  }
  throw new Error('the entities were accepted');
};

const TEXT = 'hello world';

describe('checkEntities: the entities a caller gives', () => {
  it('takes at most 100 entities', () => {
    const bold = (i: number) => ({ type: 'bold', offset: i % 10, length: 1 + (i % 2) });
    expect(
      checkEntities(
        TEXT,
        Array.from({ length: MAX_ENTITIES }, (_, i) => bold(i)),
      ),
    ).toHaveLength(MAX_ENTITIES);
    expect(
      refusal(
        TEXT,
        Array.from({ length: MAX_ENTITIES + 1 }, (_, i) => bold(i)),
      ),
    ).toBe('Too many entities: at most 100');
  });

  it('takes an array only, of objects only, naming the entity at fault', () => {
    for (const given of [{}, null, 'bold', undefined])
      expect(refusal(TEXT, given)).toBe('entities must be an array of MessageEntity');
    for (const raw of [null, 5, 'bold', [{ type: 'bold', offset: 0, length: 1 }]]) {
      expect(refusal(TEXT, [{ type: 'bold', offset: 0, length: 1 }, raw])).toBe('entity 1 must be an object');
    }
  });

  it('takes the known types only', () => {
    for (const type of [undefined, 7, 'text_mention', 'custom_emoji', 'BOLD', 'toString']) {
      expect(refusal(TEXT, [{ type, offset: 0, length: 1 }])).toBe('entity 0 has an unsupported type');
    }
  });

  it('takes offsets of 0 or more and lengths of 1 or more, whole and safe numbers only', () => {
    const message = 'entity 0 needs an offset of 0 or more and a length of 1 or more';
    for (const [offset, length] of [
      [-1, 1],
      [0, 0],
      [0, -1],
      [0.5, 1],
      [0, 1.5],
      ['0', 1],
      [0, '1'],
      [Number.NaN, 1],
      [2 ** 53, 1],
      [0, 2 ** 53],
      [undefined, 1],
      [0, undefined],
    ]) {
      expect(refusal(TEXT, [{ type: 'bold', offset, length }])).toBe(message);
    }
    expect(checkEntities(TEXT, [{ type: 'bold', offset: 0, length: 1 }])).toEqual([
      { type: 'bold', offset: 0, length: 1 },
    ]);
  });

  it('takes an entity that ends where the text ends, not one past it', () => {
    expect(checkEntities(TEXT, [{ type: 'italic', offset: 6, length: 5 }])).toEqual([
      { type: 'italic', offset: 6, length: 5 },
    ]);
    expect(refusal(TEXT, [{ type: 'italic', offset: 6, length: 6 }])).toBe(
      'entity 0 ends after the text (offsets count UTF-16 code units)',
    );
  });

  it('keeps only the formatting, with no field it was not given', () => {
    const given = [
      { type: 'mention', offset: 0, length: 5 },
      { type: 'bold', offset: 0, length: 5, url: 'https://example.com', language: 'js', extra: 1 },
    ];
    expect(checkEntities(TEXT, given)).toEqual([{ type: 'bold', offset: 0, length: 5 }]);
  });

  it('needs a valid url for a text_link and keeps it normalised', () => {
    expect(checkEntities(TEXT, [{ type: 'text_link', offset: 0, length: 5, url: 'example.com' }])).toEqual([
      { type: 'text_link', offset: 0, length: 5, url: 'http://example.com' },
    ]);
    for (const url of [undefined, 42, '', 'javascript://example.com/%0Aalert(1)']) {
      expect(refusal(TEXT, [{ type: 'text_link', offset: 0, length: 5, url }])).toBe(
        'entity 0: a text_link needs a valid url',
      );
    }
  });

  it('keeps the language of a pre, a string of at most 64 characters, and none when it is empty', () => {
    const pre = (language: unknown) => [{ type: 'pre', offset: 0, length: 5, language }];
    expect(checkEntities(TEXT, pre('python'))).toEqual([{ type: 'pre', offset: 0, length: 5, language: 'python' }]);
    expect(checkEntities(TEXT, pre('l'.repeat(64)))[0].language).toBe('l'.repeat(64));
    expect(checkEntities(TEXT, pre(''))).toEqual([{ type: 'pre', offset: 0, length: 5 }]);
    expect(checkEntities(TEXT, pre(undefined))).toEqual([{ type: 'pre', offset: 0, length: 5 }]);
    for (const language of ['l'.repeat(65), 5, null, ['js']]) {
      expect(refusal(TEXT, pre(language))).toBe('entity 0: language must be a string of at most 64 characters');
    }
  });

  it('gives the entities normalised: sorted, and nothing inside code', () => {
    const given = [
      { type: 'bold', offset: 6, length: 5 },
      { type: 'code', offset: 0, length: 5 },
      { type: 'italic', offset: 1, length: 2 },
    ];
    expect(checkEntities(TEXT, given)).toEqual<MessageEntity[]>([
      { type: 'code', offset: 0, length: 5 },
      { type: 'bold', offset: 6, length: 5 },
    ]);
  });
});

describe('parseFormatted', () => {
  it('takes markup of up to 100 entities and refuses more', () => {
    expect(parseFormatted('<b>a</b> '.repeat(MAX_ENTITIES), 'HTML').entities).toHaveLength(MAX_ENTITIES);
    expect(() => parseFormatted('<b>a</b> '.repeat(MAX_ENTITIES + 1), 'HTML')).toThrow(
      new EntityParseError('Too many entities: at most 100'),
    );
  });

  it('counts the entities left once empty ones and those inside code are dropped', () => {
    const markup = `${'<b></b>'.repeat(MAX_ENTITIES)}<code>${'<i>x</i>'.repeat(MAX_ENTITIES)}</code>`;
    expect(parseFormatted(markup, 'HTML')).toEqual({
      text: 'x'.repeat(MAX_ENTITIES),
      entities: [{ type: 'code', offset: 0, length: 100 }],
    });
  });

  it('reads each mode with its own parser, trims the text and sorts the entities', () => {
    expect(parseFormatted('  <i>a</i><b>b</b>  ', 'HTML')).toEqual({
      text: 'ab',
      entities: [
        { type: 'italic', offset: 0, length: 1 },
        { type: 'bold', offset: 1, length: 1 },
      ],
    });
    expect(parseFormatted('*a* _b_', 'Markdown').entities.map((entity) => entity.type)).toEqual(['bold', 'italic']);
    expect(parseFormatted('__a__', 'MarkdownV2').entities).toEqual([{ type: 'underline', offset: 0, length: 1 }]);
    // Legacy Markdown has no underline: `__` is an empty italic on either side.
    expect(parseFormatted('__a__', 'Markdown')).toEqual({ text: 'a', entities: [] });
    expect(parseFormatted('__a__', 'HTML')).toEqual({ text: '__a__', entities: [] });
  });
});
