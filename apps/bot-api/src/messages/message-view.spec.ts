import type { StoredFile } from '../files/entities/file.entity';
import type { Message } from './entities/message.entity';
import { unixSeconds } from '../unix-time';
import { messageView } from './message-view';
import { updateTypeOf } from './message-events.service';
import { kindForMime } from './client-messages.service';

const chat = { id: 'c1', type: 'private' as const, title: null };
const sender = { id: 'u1', name: 'Ann', username: null, isBot: false };

function message(overrides: Partial<Message>): Message {
  return {
    id: 7,
    chatId: 'c1',
    senderId: 'u1',
    kind: 'text',
    text: 'hi',
    entities: [],
    detectedEntities: [],
    detectedTextMd5: null,
    fileId: null,
    replyToMessageId: null,
    mentions: [],
    metadata: {},
    replyMarkup: null,
    createdAt: new Date('2026-01-01T00:00:10.900Z'),
    editedAt: null,
    deletedAt: null,
    ...overrides,
  } as Message;
}

const file = {
  id: 'f1',
  fileName: 'a.jpg',
  mimeType: 'image/jpeg',
  fileSize: 10,
  width: 100,
  height: 50,
  duration: null,
} as StoredFile;

describe('message view', () => {
  it('has the sent-message shape of spec 2.3 with the date in Unix seconds', () => {
    expect(messageView(message({}), chat, sender, null)).toMatchObject({
      message_id: 7,
      chat: { id: 'c1', type: 'private' },
      from: { id: 'u1', is_bot: false },
      text: 'hi',
      date: unixSeconds(new Date('2026-01-01T00:00:10Z')),
    });
  });

  it('fills the file block from stored metadata, per-message values winning', () => {
    const view = messageView(
      message({ kind: 'photo', fileId: 'f1', text: 'cap', metadata: { file: { width: 20 } } }),
      chat,
      sender,
      file,
    );
    expect(view.caption).toBe('cap');
    expect(view.file).toEqual({
      file_id: 'f1',
      file_name: 'a.jpg',
      mime_type: 'image/jpeg',
      file_size: 10,
      url: null,
      thumbnail_url: null,
      width: 20,
      height: 50,
      duration: null,
    });
  });

  it('renders venues as a titled location and leaves absent blocks out', () => {
    const view = messageView(
      message({
        kind: 'venue',
        text: null,
        metadata: { isVenue: true, location: { latitude: 1, longitude: 2, name: 'Cafe', address: 'Main' } },
      }),
      chat,
      sender,
      null,
    );
    expect(view.venue).toEqual({ title: 'Cafe', address: 'Main', location: { latitude: 1, longitude: 2 } });
    expect(view).not.toHaveProperty('file');
    expect(view).not.toHaveProperty('poll');
    expect(view).not.toHaveProperty('reply_to_message_id');
    expect(view).not.toHaveProperty('entities');
  });

  it('shows the formatting with the entities detected at write, and caption_entities for media', () => {
    const bold = { type: 'bold' as const, offset: 0, length: 2 };
    const command = { type: 'bot_command' as const, offset: 3, length: 5 };
    const text = messageView(
      message({ text: 'hi /help', entities: [bold], detectedEntities: [command] }),
      chat,
      sender,
      null,
    );
    expect(text.entities).toEqual([bold, command]);
    expect(text).not.toHaveProperty('caption_entities');
    const photo = messageView(
      message({ kind: 'photo', fileId: 'f1', text: 'hi', entities: [bold] }),
      chat,
      sender,
      file,
    );
    expect(photo).toMatchObject({ caption: 'hi', caption_entities: [bold], entities: [bold] });
  });

  it('detects nothing on a read: a message whose entities were not detected yet shows its formatting', () => {
    const bold = { type: 'bold' as const, offset: 0, length: 2 };
    const view = messageView(
      message({ text: 'hi /help', entities: [bold], detectedEntities: null }),
      chat,
      sender,
      null,
    );
    expect(view.entities).toEqual([bold]);
  });

  it('carries the message replied to one level deep, without its own reply', () => {
    const first = messageView(message({ id: 1, text: 'first' }), chat, sender, null);
    const second = messageView(
      message({ id: 2, text: 'second', replyToMessageId: 1 }),
      chat,
      sender,
      null,
      null,
      first,
    );
    const third = messageView(message({ id: 3, text: 'third', replyToMessageId: 2 }), chat, sender, null, null, second);
    expect(third.reply_to_message).toMatchObject({ message_id: 2, text: 'second', reply_to_message_id: 1 });
    expect(third.reply_to_message).not.toHaveProperty('reply_to_message');
  });
});

describe('message kinds', () => {
  it('gives photo, document, video, audio and location messages their own Update type, others message', () => {
    expect(updateTypeOf('photo')).toBe('photo');
    expect(updateTypeOf('document')).toBe('document');
    expect(updateTypeOf('video')).toBe('video');
    expect(updateTypeOf('audio')).toBe('audio');
    expect(updateTypeOf('location')).toBe('location');
    expect(updateTypeOf('venue')).toBe('location');
    expect(updateTypeOf('text')).toBe('message');
    expect(updateTypeOf('sticker')).toBe('message');
  });

  it('derives the kind of a person upload from its MIME type', () => {
    expect(kindForMime('image/png')).toBe('photo');
    expect(kindForMime('video/mp4')).toBe('video');
    expect(kindForMime('audio/ogg')).toBe('audio');
    expect(kindForMime('application/zip')).toBe('document');
  });
});
