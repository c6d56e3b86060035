import { groupMessageVisibleTo, isCommand, mentionsHandle } from './privacy';

const bot = { systemUserId: 'bot-user-1', username: 'ShopBot' };
const plain = { text: 'hello everyone', mentions: [], replyToSenderId: null };

describe('group privacy filter', () => {
  it('delivers a message whose first space-separated token starts with a slash', () => {
    expect(groupMessageVisibleTo(bot, { ...plain, text: '/start now' })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, text: '  /help' })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, text: 'see /help' })).toBe(false);
  });

  it('delivers text containing the bot @username in any letter case, as a whole handle only', () => {
    expect(groupMessageVisibleTo(bot, { ...plain, text: 'hey @shopbot, price?' })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, text: 'hey @SHOPBOT' })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, text: 'ask @shopbot_admin' })).toBe(false);
    expect(groupMessageVisibleTo(bot, { ...plain, text: 'shopbot without at' })).toBe(false);
  });

  it('delivers a reply to a message of the bot and not a reply to someone else', () => {
    expect(groupMessageVisibleTo(bot, { ...plain, replyToSenderId: 'bot-user-1' })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, replyToSenderId: 'someone' })).toBe(false);
  });

  it('delivers a message whose mentions list names the bot user id or username', () => {
    expect(groupMessageVisibleTo(bot, { ...plain, mentions: ['bot-user-1'] })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, mentions: ['shopbot'] })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, mentions: ['@ShopBot'] })).toBe(true);
    expect(groupMessageVisibleTo(bot, { ...plain, mentions: ['other'] })).toBe(false);
  });

  it('does not deliver an ordinary group message, nor match usernames for a bot without one', () => {
    expect(groupMessageVisibleTo(bot, plain)).toBe(false);
    expect(
      groupMessageVisibleTo({ systemUserId: 'x', username: null }, { ...plain, text: '@x hi', mentions: ['x2'] }),
    ).toBe(false);
  });

  it('recognises commands and handles on their own', () => {
    expect(isCommand(null)).toBe(false);
    expect(isCommand('/x')).toBe(true);
    expect(mentionsHandle('a.b @a.b', 'a.b')).toBe(true);
    expect(mentionsHandle('@axb', 'a.b')).toBe(false);
  });
});
