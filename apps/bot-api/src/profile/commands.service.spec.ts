import { ApiError } from '@app/envelope';
import { scopeKeyOf } from './commands.service';

describe('scopeKeyOf', () => {
  it('uses the default scope when none is given', () => {
    expect(scopeKeyOf(undefined)).toEqual({ scope: { type: 'default' }, key: 'default' });
  });

  it('keys chat scopes by their chat and member', () => {
    expect(scopeKeyOf({ type: 'chat', chat_id: 'c1' }).key).toBe('chat:c1');
    expect(scopeKeyOf({ type: 'chat_administrators', chat_id: 'c1' }).key).toBe('chat_administrators:c1');
    expect(scopeKeyOf({ type: 'chat_member', chat_id: 'c1', user_id: 'u1' }).key).toBe('chat_member:c1:u1');
  });

  it('refuses a chat scope without chat_id and chat ids on scopes that take none', () => {
    expect(() => scopeKeyOf({ type: 'chat' })).toThrow(ApiError);
    expect(() => scopeKeyOf({ type: 'chat_member', chat_id: 'c1' })).toThrow(ApiError);
    expect(() => scopeKeyOf({ type: 'all_group_chats', chat_id: 'c1' })).toThrow(ApiError);
    expect(() => scopeKeyOf({ type: 'chat', chat_id: 'c1', user_id: 'u1' })).toThrow(ApiError);
  });
});
