import { ChatsStore } from '../../../apps/bot-api/src/chats/chats.store';
import { FileUploadsStore } from '../../../apps/bot-api/src/files/file-uploads.store';
import { FilesStore } from '../../../apps/bot-api/src/files/files.store';
import {
  CallbackQueriesStore,
  InlineQueriesStore,
} from '../../../apps/bot-api/src/interaction/interaction-queries.store';
import { VirtualMemberAuditStore } from '../../../apps/bot-api/src/virtual-members/virtual-member-audit.store';
import { VirtualMembersStore } from '../../../apps/bot-api/src/virtual-members/virtual-members.store';
import { store, type StoreExamples } from '../example-types';

const CHAT = '11111111-1111-4111-8111-111111111111';
const QUERY = '22222222-2222-4222-8222-222222222222';
const FILE = '33333333-3333-4333-8333-333333333333';
const UPLOAD = '44444444-4444-4444-8444-444444444444';
const JOIN_REQUEST = '55555555-5555-4555-8555-555555555555';
const BOT = 'bot-1';
const USER = 'user-1';
const BOT_USER = 'bot-user-1';
const AT = new Date('2026-01-01T00:00:00.000Z');
const BOT_OWNER = { kind: 'bot', botId: BOT } as const;
const DECLARED = { fileName: 'photo.png', fileSize: 1024, mimeType: 'image/png' };
const MEMBER = {
  chatId: CHAT,
  userId: USER,
  rank: 'member',
  state: 'active',
  banReason: null,
  joinedAt: AT,
  updatedAt: AT,
} as const;

const refused = (): undefined => undefined;

export const STORE_EXAMPLES: readonly StoreExamples[] = [
  store<ChatsStore>({
    file: 'apps/bot-api/src/chats/chats.store.ts',
    create: (recorder) => new ChatsStore(recorder.asDatabase()),
    examples: [
      // The recorder's empty row is no active membership: both statements run, then the call answers 404.
      { method: 'requireActiveMember', run: (s, tx) => s.requireActiveMember(tx, CHAT, USER).catch(refused) },
      {
        method: 'requireActiveMember (locked)',
        run: (s, tx) => s.requireActiveMember(tx, CHAT, USER, true).catch(refused),
      },
      { method: 'shareAChat', run: (s, tx) => s.shareAChat(tx, BOT_USER, USER) },
      { method: 'find', run: (s, tx) => s.find(tx, CHAT) },
      { method: 'createGroup', run: (s, tx) => s.createGroup(tx, 'Group', USER) },
      { method: 'openPrivate', run: (s, tx) => s.openPrivate(tx, USER, BOT_USER) },
      { method: 'update', run: (s, tx) => s.update(tx, CHAT, { title: 'Group', description: null }) },
      { method: 'pin', run: (s, tx) => s.pin(tx, CHAT, 42) },
      { method: 'member', run: (s, tx) => s.member(tx, CHAT, USER) },
      { method: 'countActive', run: (s) => s.countActive(CHAT) },
      { method: 'managers', run: (s, tx) => s.managers(tx, CHAT) },
      {
        method: 'addMembers',
        run: (s, tx) =>
          s.addMembers(tx, CHAT, [
            { userId: USER, rank: 'owner' },
            { userId: BOT_USER, rank: 'member' },
          ]),
      },
      {
        method: 'setMembership (new)',
        run: (s, tx) => s.setMembership(tx, CHAT, USER, null, { rank: 'member', state: 'banned', banReason: 'spam' }),
      },
      {
        method: 'setMembership (existing)',
        run: (s, tx) => s.setMembership(tx, CHAT, USER, { ...MEMBER }, { state: 'kicked' }),
      },
      { method: 'openJoinRequest', run: (s, tx) => s.openJoinRequest(tx, CHAT, USER) },
      { method: 'joinRequest', run: (s, tx) => s.joinRequest(tx, JOIN_REQUEST) },
      { method: 'settleJoinRequest', run: (s, tx) => s.settleJoinRequest(tx, CHAT, USER, 'approved') },
      { method: 'botsInChat', run: (s, tx) => s.botsInChat(tx, CHAT) },
      { method: 'botOfUser', run: (s, tx) => s.botOfUser(tx, BOT_USER, CHAT) },
    ],
  }),
  store<VirtualMembersStore>({
    file: 'apps/bot-api/src/virtual-members/virtual-members.store.ts',
    create: () => new VirtualMembersStore(),
    examples: [
      { method: 'insert', run: (s, tx) => s.insert(tx, USER, CHAT, BOT) },
      { method: 'find', run: (s, tx) => s.find(tx, USER, CHAT, BOT) },
      { method: 'page', run: (s, tx) => s.page(tx, CHAT, BOT, 20, 10) },
    ],
  }),
  store<VirtualMemberAuditStore>({
    file: 'apps/bot-api/src/virtual-members/virtual-member-audit.store.ts',
    create: () => new VirtualMemberAuditStore(),
    examples: [
      {
        method: 'record',
        run: (s, tx) =>
          s.record(tx, {
            botId: BOT,
            action: 'send',
            outcome: 'succeeded',
            chatId: CHAT,
            virtualMemberId: USER,
            messageId: 42,
            request: { text: 'hello' },
          }),
      },
      { method: 'page', run: (s, tx) => s.page(tx, BOT, 20, 10) },
      { method: 'purgeOlderThan', run: (s, tx) => s.purgeOlderThan(tx, 90) },
    ],
  }),
  store<CallbackQueriesStore>({
    file: 'apps/bot-api/src/interaction/interaction-queries.store.ts',
    create: () => new CallbackQueriesStore(),
    examples: [
      {
        method: 'CallbackQueriesStore.insert',
        run: (s, tx) => s.insert(tx, { botId: BOT, userId: USER, chatId: CHAT, messageId: 42, data: 'button' }, 15_000),
      },
      { method: 'CallbackQueriesStore.answer', run: (s, tx) => s.answer(tx, QUERY, BOT, { text: 'done' }) },
      { method: 'CallbackQueriesStore.readForUser', run: (s, tx) => s.readForUser(tx, QUERY, USER) },
      { method: 'CallbackQueriesStore.purgeOlderThan', run: (s, tx) => s.purgeOlderThan(tx, 24) },
      {
        method: 'InlineQueriesStore.insert',
        run: (_, tx) =>
          new InlineQueriesStore().insert(tx, { botId: BOT, userId: USER, query: 'cats', offset: '' }, 15_000),
      },
      {
        method: 'InlineQueriesStore.answer',
        run: (_, tx) => new InlineQueriesStore().answer(tx, QUERY, BOT, { results: [] }),
      },
      {
        method: 'InlineQueriesStore.readForUser',
        run: (_, tx) => new InlineQueriesStore().readForUser(tx, QUERY, USER),
      },
      { method: 'InlineQueriesStore.purgeOlderThan', run: (_, tx) => new InlineQueriesStore().purgeOlderThan(tx, 24) },
    ],
  }),
  store<FilesStore>({
    file: 'apps/bot-api/src/files/files.store.ts',
    create: (recorder) => new FilesStore(recorder.asDatabase()),
    examples: [
      { method: 'byId', run: (s, tx) => s.byId(tx, FILE) },
      { method: 'postedToMemberOf', run: (s, tx) => s.postedToMemberOf(tx, FILE, USER) },
      { method: 'carriersSeenBy', run: (s, tx) => s.carriersSeenBy(tx, FILE, BOT_USER, USER) },
      { method: 'byIds', run: (s, tx) => s.byIds(tx, [FILE, null, UPLOAD]) },
      { method: 'existsForKey', run: (s, tx) => s.existsForKey(tx, 'bots/bot-1/key') },
      {
        method: 'create',
        run: (s, tx) =>
          s.create(tx, BOT_OWNER, 'bots/bot-1/key', DECLARED, { width: 640, height: 480, duration: null }),
      },
      { method: 'lockBotStorage', run: (s, tx) => s.lockBotStorage(tx, BOT) },
      { method: 'bytesOfBot', run: (s, tx) => s.bytesOfBot(tx, BOT) },
      { method: 'lockUnreferenced', run: (s, tx) => s.lockUnreferenced(tx, 24, 100) },
      { method: 'deleteByIds', run: (s, tx) => s.deleteByIds(tx, [FILE]) },
      { method: 'ownedImage', run: (s) => s.ownedImage(FILE, USER) },
    ],
  }),
  store<FileUploadsStore>({
    file: 'apps/bot-api/src/files/file-uploads.store.ts',
    create: () => new FileUploadsStore(),
    examples: [
      { method: 'insert', run: (s, tx) => s.insert(tx, BOT_OWNER, 'bots/bot-1/key', DECLARED, AT) },
      { method: 'pendingBytesOfBot', run: (s, tx) => s.pendingBytesOfBot(tx, BOT) },
      { method: 'byKey', run: (s, tx) => s.byKey(tx, 'bots/bot-1/key') },
      { method: 'byKey (locked)', run: (s, tx) => s.byKey(tx, 'bots/bot-1/key', true) },
      { method: 'claimUpload', run: (s, tx) => s.claimUpload(tx, 'bots/bot-1/key') },
      { method: 'markCompleted', run: (s, tx) => s.markCompleted(tx, UPLOAD) },
      { method: 'lockAbandoned', run: (s, tx) => s.lockAbandoned(tx, 3600, 100) },
      { method: 'deleteByIds', run: (s, tx) => s.deleteByIds(tx, [UPLOAD]) },
      { method: 'deleteCompletedBefore', run: (s, tx) => s.deleteCompletedBefore(tx, AT) },
    ],
  }),
];
