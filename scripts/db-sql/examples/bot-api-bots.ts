import { BotsStore } from '../../../apps/bot-api/src/bots/bots.store';
import { BotFriendsStore } from '../../../apps/bot-api/src/friends/bot-friends.store';
import { FriendRequestsStore } from '../../../apps/bot-api/src/friends/friend-requests.store';
import { BotCommandsStore } from '../../../apps/bot-api/src/profile/bot-commands.store';
import { UsersStore } from '../../../apps/bot-api/src/users/users.store';
import { store, type StoreExamples } from '../example-types';

const BOT = '0123456789abcdef01234567';
const OWNER = 'developer-1';
const STAFF = 'staff-1';
const SYSTEM_USER = `bot_${BOT}`;
const REQUEST = '11111111-1111-4111-8111-111111111111';
const COMMAND_SET = { botId: BOT, scopeKey: 'default', languageCode: '' };

export const STORE_EXAMPLES: readonly StoreExamples[] = [
  store<BotsStore>({
    file: 'apps/bot-api/src/bots/bots.store.ts',
    create: (recorder) => new BotsStore(recorder.asDatabase()),
    examples: [
      {
        method: 'insertApplication',
        run: (s, tx) =>
          s.insertApplication(tx, {
            id: BOT,
            ownerId: OWNER,
            name: 'Helper',
            username: 'helper_bot',
            description: null,
            avatar: null,
            scopes: ['messages:send', 'messages:receive'],
          }),
      },
      { method: 'usernameTaken', run: (s, tx) => s.usernameTaken(tx, 'helper_bot', BOT, SYSTEM_USER) },
      { method: 'takenUsernames', run: (s, tx) => s.takenUsernames(tx, ['helper_bot', 'helper_1_bot'], BOT) },
      { method: 'claimUsername', run: (s, tx) => s.claimUsername(tx, BOT, 'helper_bot') },
      { method: 'pageOfOwner', run: (s) => s.pageOfOwner(OWNER, 0, 20) },
      { method: 'pageForReview (one status)', run: (s) => s.pageForReview('pending', 0, 20) },
      { method: 'pageForReview (every bot)', run: (s) => s.pageForReview(undefined, 0, 20) },
      { method: 'findOwned', run: (s) => s.findOwned(OWNER, BOT) },
      { method: 'find', run: (s, tx) => s.find(tx, BOT) },
      { method: 'get', run: (s, tx) => s.get(BOT, tx) },
      { method: 'lock', run: (s, tx) => s.lock(tx, BOT) },
      { method: 'lock (of the owner)', run: (s, tx) => s.lock(tx, BOT, OWNER) },
      { method: 'lockShared', run: (s, tx) => s.lockShared(tx, BOT) },
      {
        method: 'update',
        run: (s, tx) => s.update(tx, BOT, { name: 'Helper', rate_limits: { send_per_sec: 5 } }),
      },
      { method: 'reviewOf', run: (s, tx) => s.reviewOf(tx, BOT) },
      { method: 'reviewOf (of the owner)', run: (s, tx) => s.reviewOf(tx, BOT, OWNER) },
      { method: 'approvePending', run: (s, tx) => s.approvePending(tx, BOT, STAFF) },
      { method: 'linkSystemUser', run: (s, tx) => s.linkSystemUser(tx, BOT, SYSTEM_USER) },
      { method: 'rejectPending', run: (s, tx) => s.rejectPending(tx, BOT, 'incomplete', STAFF) },
      { method: 'findByTokenHash', run: (s) => s.findByTokenHash('a'.repeat(64)) },
      { method: 'currentTokenHashPrefixes', run: (s) => s.currentTokenHashPrefixes(8) },
      {
        method: 'issueToken',
        run: (s, tx) =>
          s.issueToken(tx, BOT, { hash: 'a'.repeat(64), prefix: 'sbot_abcd', sealed: 'sealed', ttlMs: 604_800_000 }),
      },
      { method: 'lockTokenCopy', run: (s, tx) => s.lockTokenCopy(tx, OWNER, BOT) },
      { method: 'destroyTokenCopy', run: (s, tx) => s.destroyTokenCopy(tx, BOT) },
      {
        method: 'replaceToken',
        run: (s, tx) => s.replaceToken(tx, OWNER, BOT, { hash: 'b'.repeat(64), prefix: 'sbot_efgh' }),
      },
      { method: 'revokeToken', run: (s, tx) => s.revokeToken(tx, OWNER, BOT) },
      { method: 'destroyExpiredTokenCopies', run: (s) => s.destroyExpiredTokenCopies() },
      { method: 'setFriendRequestMode', run: (s, tx) => s.setFriendRequestMode(tx, BOT, 'manual') },
      { method: 'friendRequestModeOf', run: (s, tx) => s.friendRequestModeOf(tx, BOT) },
      { method: 'friendRequestModeOf (locked)', run: (s, tx) => s.friendRequestModeOf(tx, BOT, true) },
      { method: 'setDescription', run: (s) => s.setDescription(BOT, 'Answers questions') },
      { method: 'setShortDescription', run: (s) => s.setShortDescription(BOT, 'Answers') },
      { method: 'availableByUsername', run: (s, tx) => s.availableByUsername(tx, 'helper_bot') },
      { method: 'virtualMembersEnabled', run: (s, tx) => s.virtualMembersEnabled(tx, BOT) },
    ],
  }),
  store<UsersStore>({
    file: 'apps/bot-api/src/users/users.store.ts',
    create: (recorder) => new UsersStore(recorder.asDatabase()),
    examples: [
      { method: 'upsert', run: (s) => s.upsert('user-1', 'Ada') },
      { method: 'people', run: (s, tx) => s.people(tx, ['user-1', 'user-2']) },
      { method: 'createVirtualUser', run: (s, tx) => s.createVirtualUser(tx, 'virtual-1', 'Guide') },
      { method: 'isBot', run: (s, tx) => s.isBot(tx, SYSTEM_USER) },
      { method: 'createBotUser', run: (s, tx) => s.createBotUser(tx, SYSTEM_USER, 'Helper', 'helper_bot') },
      { method: 'renameBotUser', run: (s, tx) => s.renameBotUser(tx, SYSTEM_USER, 'Helper', 'helper_bot') },
    ],
  }),
  store<BotCommandsStore>({
    file: 'apps/bot-api/src/profile/bot-commands.store.ts',
    create: () => new BotCommandsStore(),
    examples: [
      {
        method: 'replace',
        run: (s, tx) =>
          s.replace(tx, COMMAND_SET, { type: 'default' }, [{ command: 'start', description: 'Start the bot' }]),
      },
      { method: 'find', run: (s, tx) => s.find(tx, COMMAND_SET) },
      { method: 'delete', run: (s, tx) => s.delete(tx, COMMAND_SET) },
    ],
  }),
  store<FriendRequestsStore>({
    file: 'apps/bot-api/src/friends/friend-requests.store.ts',
    create: () => new FriendRequestsStore(),
    examples: [
      { method: 'settlePending', run: (s, tx) => s.settlePending(tx, BOT, 'accepted') },
      { method: 'pendingPage', run: (s, tx) => s.pendingPage(tx, BOT, { page: 1, pageSize: 20, offset: 0 }) },
      { method: 'lockOfBot', run: (s, tx) => s.lockOfBot(tx, BOT, REQUEST) },
      {
        method: 'saveAnswer',
        run: (s, tx) =>
          s.saveAnswer(tx, { id: REQUEST, status: 'accepted', answeredAt: new Date('2026-01-01T00:00:00.000Z') }),
      },
      {
        method: 'insert',
        run: (s, tx) =>
          s.insert(tx, {
            id: REQUEST,
            botId: BOT,
            userId: 'user-1',
            message: 'Hello',
            source: 'client',
            status: 'pending',
            answeredAt: null,
          }),
      },
    ],
  }),
  store<BotFriendsStore>({
    file: 'apps/bot-api/src/friends/bot-friends.store.ts',
    create: () => new BotFriendsStore(),
    examples: [
      { method: 'exists', run: (s, tx) => s.exists(tx, BOT, 'user-1') },
      { method: 'add', run: (s, tx) => s.add(tx, BOT, ['user-1', 'user-2']) },
    ],
  }),
];
