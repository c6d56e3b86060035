import { detectedEntitiesOf, detectEntities, withDetectedEntities } from './detect';
import { MessageEntity } from './entities';

/** The text of each entity found, with its type. */
const found = (text: string) =>
  detectEntities(text).map((entity) => `${entity.type}:${text.slice(entity.offset, entity.offset + entity.length)}`);

describe('detection at the edges of each rule', () => {
  it('takes command names of 1 to 32 characters and bot names of 3 to 32', () => {
    expect(found(`/${'a'.repeat(32)}`)).toEqual([`bot_command:/${'a'.repeat(32)}`]);
    expect(found(`/${'a'.repeat(33)}`)).toEqual([]);
    expect(found('/')).toEqual([]);
    expect(found(`/a@${'b'.repeat(3)} /a@${'b'.repeat(32)}`)).toEqual([
      'bot_command:/a@bbb',
      `bot_command:/a@${'b'.repeat(32)}`,
    ]);
    expect(found(`/a@bb /a@${'b'.repeat(33)} /a@bbb.`)).toEqual(['bot_command:/a@bbb']);
    expect(found('/a,')).toEqual(['bot_command:/a']);
    expect(found('/a-b')).toEqual([]);
  });

  it('takes mentions of 3 to 32 characters ending the word', () => {
    expect(found(`@abc @${'m'.repeat(32)} @ab @${'m'.repeat(33)} @abc-d`)).toEqual([
      'mention:@abc',
      `mention:@${'m'.repeat(32)}`,
    ]);
  });

  it('starts entities only at the text start, after white space or an opening bracket or quote', () => {
    expect(found('a/b a@abc a#tag (#tag) "@abc" «/go» [x.y@ab.cd]')).toEqual([
      'hashtag:#tag',
      'mention:@abc',
      'bot_command:/go',
      'email:x.y@ab.cd',
    ]);
  });

  it('takes e-mail domains of two labels or more whose last is two letters or more', () => {
    expect(found('a@b.cd a@b.c a@bc a@b..cd a@b.c1 a@b.cd.e a@b-c.de a_b%c@d.ef')).toEqual([
      'email:a@b.cd',
      'email:a@b.cd',
      'email:a@b-c.de',
      'email:a_b%c@d.ef',
    ]);
    expect(found('@b.cd a@.cd')).toEqual([]);
  });

  it('counts A and Z as the letters a hashtag needs, as a and z', () => {
    expect(found('#A1 #Z1 #a1 #z1')).toEqual(['hashtag:#A1', 'hashtag:#Z1', 'hashtag:#a1', 'hashtag:#z1']);
  });

  it('starts entities after any white space of JavaScript, the spaces U+2000 to U+200A included', () => {
    for (const space of ['\u2000', '\u2005', '\u200a']) expect(found(`x${space}@alice`)).toEqual(['mention:@alice']);
  });

  it('takes hashtags with at least one letter of any script, digits and _ besides', () => {
    expect(found('#123 #_1 #a1 #ж #٣ #٣ж #𝐀 #a-b #a.')).toEqual([
      'hashtag:#a1',
      'hashtag:#ж',
      'hashtag:#٣ж',
      'hashtag:#𝐀',
      'hashtag:#a',
    ]);
  });

  it('takes URLs of each scheme in any case, up to white space, < > or ", less the punctuation that ends a sentence', () => {
    expect(
      found('Https://a.b/c, FTP://f.g tg://resolve?x=1! http:// hxxp://a.b http://a<b http://c"d http://e>f'),
    ).toEqual([
      'url:Https://a.b/c',
      'url:FTP://f.g',
      'url:tg://resolve?x=1',
      'url:http://a',
      'url:http://c',
      'url:http://e',
    ]);
    expect(found('http://a.b/…).')).toEqual(['url:http://a.b/…']);
  });

  it('keeps the first kind that claims a span: a command before the URL or e-mail it overlaps', () => {
    expect(detectEntities('/start http://x.y a@b.cd')).toEqual<MessageEntity[]>([
      { type: 'bot_command', offset: 0, length: 6 },
      { type: 'url', offset: 7, length: 10 },
      { type: 'email', offset: 18, length: 6 },
    ]);
    expect(found('@abc@de.fg')).toEqual([]);
  });
});

describe('detectedEntitiesOf and withDetectedEntities', () => {
  it('finds nothing in no text, and everything when nothing given is opaque', () => {
    expect(detectedEntitiesOf(null, [])).toEqual([]);
    expect(detectedEntitiesOf('', [])).toEqual([]);
    expect(detectedEntitiesOf('/a @abc', [{ type: 'bold', offset: 0, length: 7 }])).toHaveLength(2);
  });

  it('leaves out what a long opaque entity reaches over, and keeps what follows it', () => {
    const text = '/a /b /c /d';
    const opaque: MessageEntity[] = [
      { type: 'pre', offset: 0, length: 6 },
      { type: 'code', offset: 1, length: 1 },
    ];
    expect(detectedEntitiesOf(text, opaque)).toEqual([
      { type: 'bot_command', offset: 6, length: 2 },
      { type: 'bot_command', offset: 9, length: 2 },
    ]);
    expect(detectedEntitiesOf(text, [{ type: 'text_link', offset: 3, length: 1 }])).toEqual([
      { type: 'bot_command', offset: 0, length: 2 },
      { type: 'bot_command', offset: 6, length: 2 },
      { type: 'bot_command', offset: 9, length: 2 },
    ]);
  });

  it.each(['mention', 'hashtag', 'bot_command', 'url', 'email'] as const)(
    'takes a given %s as opaque: nothing is detected inside it',
    (type) => {
      expect(detectedEntitiesOf('see @alice', [{ type, offset: 4, length: 6 }])).toEqual([]);
    },
  );

  it('keeps a detected entity that an opaque one starts right after', () => {
    expect(detectedEntitiesOf('@alice x', [{ type: 'code', offset: 6, length: 2 }])).toEqual([
      { type: 'mention', offset: 0, length: 6 },
    ]);
  });

  it('merges formatting and detected entities in the order of sortEntities, formatting first on a tie', () => {
    const bold: MessageEntity = { type: 'bold', offset: 0, length: 2 };
    const command: MessageEntity = { type: 'bot_command', offset: 0, length: 2 };
    const later: MessageEntity = { type: 'url', offset: 5, length: 3 };
    expect(withDetectedEntities([bold], [command, later])).toEqual([bold, command, later]);
    expect(withDetectedEntities([later], [command])).toEqual([command, later]);
    expect(withDetectedEntities([bold], null)).toEqual([bold]);
    expect(withDetectedEntities([], [command])).toEqual([command]);
    const formatting = [bold];
    expect(withDetectedEntities(formatting, [])).not.toBe(formatting);
  });
});
