import { isSubscribed } from './update-types';

describe('allowed_updates subscription', () => {
  it('delivers every default type when the list is omitted or empty, but not the opt-in member types', () => {
    for (const allowed of [undefined, null, []]) {
      expect(isSubscribed(allowed, 'message')).toBe(true);
      expect(isSubscribed(allowed, 'edited_message')).toBe(true);
      expect(isSubscribed(allowed, 'my_chat_member')).toBe(false);
      expect(isSubscribed(allowed, 'chat_member')).toBe(false);
      expect(isSubscribed(allowed, 'chat_join_request')).toBe(false);
    }
  });

  it('delivers only the listed types, and opt-in types once listed', () => {
    expect(isSubscribed(['my_chat_member'], 'my_chat_member')).toBe(true);
    expect(isSubscribed(['my_chat_member'], 'message')).toBe(false);
    expect(isSubscribed(['edited_message'], 'message_deleted')).toBe(false);
  });

  it('treats media sub-kinds as messages when message is listed', () => {
    expect(isSubscribed(['message'], 'photo')).toBe(true);
    expect(isSubscribed(['message'], 'location')).toBe(true);
    expect(isSubscribed(['photo'], 'document')).toBe(false);
  });
});
