import { IdRecorder, ResolvedIds, withAliases } from './ids';
import type { NativeMessage, NativeUpdate } from './native';
import { detectEntities } from './formatting/detect';
import { nativeAllowedUpdates, toTelegramChatMember, toTelegramMessage, toTelegramUpdate } from './shapes';

const ids = new ResolvedIds({
  chat: new Map([
    ['c-private', 11],
    ['c-group', 12],
  ]),
  user: new Map([
    ['alice', 21],
    ['bot-user', 22],
  ]),
});

const alice = { id: 'alice', is_bot: false, username: null, first_name: 'Alice' };

/** A photo's file block as a native message carries it. */
const photoFile = {
  file_id: 'f-1',
  file_name: 'a.jpg',
  mime_type: 'image/jpeg',
  file_size: 10,
  width: 4,
  height: 3,
  duration: null,
};

function message(overrides: Partial<NativeMessage> = {}): NativeMessage {
  return {
    message_id: 5,
    chat: { id: 'c-group', type: 'group', title: 'Team' },
    from: alice,
    date: 1700000000,
    text: 'hi',
    ...overrides,
  };
}

describe('telegram-shapes', () => {
  it('maps a group text message with negative chat id, integer user id and no null fields', () => {
    expect(toTelegramMessage(message(), ids)).toEqual({
      message_id: 5,
      from: { id: 21, is_bot: false, first_name: 'Alice' },
      date: 1700000000,
      chat: { id: -12, type: 'group', title: 'Team' },
      text: 'hi',
    });
  });

  it('maps a photo as PhotoSize[] with its caption and the file_id kept', () => {
    const mapped = toTelegramMessage(message({ kind: 'photo', file: photoFile, text: 'look', caption: 'look' }), ids);
    expect(mapped.photo).toEqual([{ file_id: 'f-1', file_unique_id: 'f1', file_size: 10, width: 4, height: 3 }]);
    expect(mapped.caption).toBe('look');
    expect(mapped.text).toBeUndefined();
  });

  it('maps a video and an animation under their own member with size, duration, name and type', () => {
    const file = {
      file_id: 'f-2',
      file_name: 'a.mp4',
      mime_type: 'video/mp4',
      file_size: 99,
      width: 640,
      height: 360,
      duration: 7,
    };
    for (const kind of ['video', 'animation'] as const) {
      const mapped = toTelegramMessage(message({ kind, file, text: null }), ids);
      expect(mapped[kind]).toEqual({
        file_id: 'f-2',
        file_unique_id: 'f2',
        file_size: 99,
        width: 640,
        height: 360,
        duration: 7,
        file_name: 'a.mp4',
        mime_type: 'video/mp4',
      });
      expect(Object.keys(mapped).filter((key) => ['video', 'animation', 'document'].includes(key))).toEqual([kind]);
    }
  });

  it('marks commands and mentions as entities in UTF-16 offsets', () => {
    expect(detectEntities('😀 /start@my_bot and @someone')).toEqual([
      { type: 'bot_command', offset: 3, length: 13 },
      { type: 'mention', offset: 21, length: 8 },
    ]);
    expect(detectEntities('a/b is not a command')).toEqual([]);
  });

  it('maps the entities the native message carries and finds none itself: they were detected when it was written', () => {
    expect(toTelegramMessage(message({ text: '/start @someone #tag' }), ids)).not.toHaveProperty('entities');
    const update: NativeUpdate = {
      update_id: 'u-1',
      type: 'message',
      update_seq: 3,
      message: message({ text: '/start' }),
    };
    expect((toTelegramUpdate(update, ids) as { message: object }).message).not.toHaveProperty('entities');
  });

  it('carries the native entities, caption_entities for media, and the message replied to one level deep', () => {
    const bold = { type: 'bold' as const, offset: 0, length: 2 };
    const replied = message({
      message_id: 3,
      text: 'q?',
      reply_to_message_id: 1,
      reply_to_message: message({ message_id: 1 }),
    });
    const mapped = toTelegramMessage(
      message({ text: 'ok', entities: [bold], reply_to_message_id: 3, reply_to_message: replied }),
      ids,
    );
    expect(mapped.entities).toEqual([bold]);
    expect(mapped.reply_to_message).toEqual({
      message_id: 3,
      from: { id: 21, is_bot: false, first_name: 'Alice' },
      date: 1700000000,
      chat: { id: -12, type: 'group', title: 'Team' },
      text: 'q?',
    });
    const photo = toTelegramMessage(
      message({ kind: 'photo', file: photoFile, text: 'hi', caption: 'hi', entities: [bold] }),
      ids,
    );
    expect(photo).toMatchObject({ caption: 'hi', caption_entities: [bold] });
    expect(photo.entities).toBeUndefined();
  });

  it('maps a caption edit as an edited media message with its caption', () => {
    const update: NativeUpdate = {
      update_id: 'u',
      type: 'edited_message',
      update_seq: 7,
      message: message({ kind: 'photo', text: 'new caption', edit_date: 1700000100 }),
    };
    expect(toTelegramUpdate(update, ids)).toMatchObject({
      edited_message: { caption: 'new caption', edit_date: 1700000100 },
    });
  });

  it('uses update_seq as update_id and drops types Telegram does not have', () => {
    const update: NativeUpdate = { update_id: 'u', type: 'photo', update_seq: 41, message: message() };
    expect(toTelegramUpdate(update, ids)).toMatchObject({ update_id: 41, message: { message_id: 5 } });
    expect(toTelegramUpdate({ update_id: 'u', type: 'message_read', update_seq: 42 }, ids)).toBeNull();
  });

  it('shows the native owner as creator and banned as kicked', () => {
    expect(toTelegramChatMember({ user: alice, status: 'owner' }, ids)).toMatchObject({ status: 'creator' });
    expect(toTelegramChatMember({ user: alice, status: 'banned' }, ids)).toMatchObject({ status: 'kicked' });
  });

  it('records the ids a mapping needs, then maps with them resolved in one call', async () => {
    const recorder = new IdRecorder();
    toTelegramMessage(message(), recorder);
    expect([...recorder.wanted.chat]).toEqual(['c-group']);
    expect([...recorder.wanted.user]).toEqual(['alice']);
    const resolve = jest.fn(async () => ({ chat: new Map([['c-group', 3]]), user: new Map([['alice', 4]]) }));
    const mapped = await withAliases((aliases) => toTelegramMessage(message(), aliases), resolve);
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(mapped.chat).toEqual({ id: -3, type: 'group', title: 'Team' });
  });

  it('keeps only Telegram update names that have a native counterpart in allowed_updates', () => {
    expect(nativeAllowedUpdates(['message', 'channel_post', 'callback_query', 'message'])).toEqual([
      'message',
      'callback_query',
    ]);
  });
});
