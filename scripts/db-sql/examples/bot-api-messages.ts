import { ChatActionsStore } from '../../../apps/bot-api/src/messages/chat-actions.store';
import type { Message } from '../../../apps/bot-api/src/messages/entities/message.entity';
import { MessageReceiptsStore } from '../../../apps/bot-api/src/messages/message-receipts.store';
import { MessagesStore } from '../../../apps/bot-api/src/messages/messages.store';
import { RedriveJobsStore } from '../../../apps/bot-api/src/staff-deliveries/redrive-jobs.store';
import { StaffAuditStore } from '../../../apps/bot-api/src/staff-deliveries/staff-audit.store';
import { store, type StoreExamples } from '../example-types';

const CHAT = '11111111-1111-4111-8111-111111111111';
const FILE = '22222222-2222-4222-8222-222222222222';
const JOB = '33333333-3333-4333-8333-333333333333';
const DELIVERY = '44444444-4444-4444-8444-444444444444';
const OTHER_DELIVERY = '55555555-5555-4555-8555-555555555555';
const SENDER = 'user-1';
const BOT = 'bot-1';
const AT = new Date('2026-01-01T00:00:00.000Z');
const TEXT = { text: 'hello', entities: [] };

const MESSAGE: Message = {
  id: 42,
  chatId: CHAT,
  senderId: SENDER,
  kind: 'text',
  text: 'hello',
  entities: [],
  detectedEntities: [],
  detectedTextMd5: '5d41402a-bc4b-2a76-b971-9d911017c592',
  fileId: null,
  replyToMessageId: null,
  mentions: [],
  metadata: {},
  replyMarkup: null,
  createdAt: AT,
  editedAt: null,
  deletedAt: null,
};

/**
 * The recorder answers every statement with one empty row; where a method goes on to map that row (the
 * chat's bots) or to bind a value of it (the new job's id), it fails after its statement is recorded.
 */
const recordedOnly = (work: Promise<unknown>) => work.catch(() => undefined);

export const STORE_EXAMPLES: readonly StoreExamples[] = [
  store<MessagesStore>({
    file: 'apps/bot-api/src/messages/messages.store.ts',
    create: (recorder) => new MessagesStore(recorder.asDatabase()),
    examples: [
      { method: 'page', run: (s) => s.page(CHAT, 0, 50) },
      { method: 'insert', run: (s, tx) => s.insert(tx, { chatId: CHAT, senderId: BOT, kind: 'photo', fileId: FILE }) },
      {
        method: 'insertAsMember',
        run: (s, tx) => s.insertAsMember(tx, { chatId: CHAT, senderId: BOT, kind: 'text', ...TEXT }),
      },
      { method: 'reserveAsMember', run: (s, tx) => recordedOnly(s.reserveAsMember(tx, CHAT, SENDER, 41)) },
      { method: 'insertReserved', run: (s, tx) => s.insertReserved(tx, MESSAGE, null) },
      { method: 'findById', run: (s, tx) => s.findById(tx, 42) },
      { method: 'save', run: (s, tx) => s.save(tx, { ...MESSAGE, editedAt: AT }) },
      { method: 'findLive', run: (s, tx) => s.findLive(tx, CHAT, 42) },
      { method: 'findLive (locked)', run: (s, tx) => s.findLive(tx, CHAT, 42, true) },
      { method: 'liveInChat', run: (s, tx) => s.liveInChat(tx, CHAT, [41, 42]) },
      { method: 'markDeleted', run: (s, tx) => s.markDeleted(tx, { ...MESSAGE }, AT) },
      { method: 'detectionPending', run: (s) => s.detectionPending(2n ** 63n - 1n, 500) },
      {
        method: 'storeDetected',
        run: (s) => s.storeDetected([{ id: 42, detectedEntities: [], detectedTextMd5: MESSAGE.detectedTextMd5 }]),
      },
      { method: 'senderOf', run: (s, tx) => s.senderOf(tx, 41) },
    ],
  }),
  store<MessageReceiptsStore>({
    file: 'apps/bot-api/src/messages/message-receipts.store.ts',
    create: () => new MessageReceiptsStore(),
    examples: [{ method: 'add', run: (s, tx) => s.add(tx, 42, SENDER, 'read') }],
  }),
  store<ChatActionsStore>({
    file: 'apps/bot-api/src/messages/chat-actions.store.ts',
    create: (recorder) => new ChatActionsStore(recorder.asDatabase()),
    examples: [
      { method: 'put', run: (s) => s.put(CHAT, BOT, 'typing', AT) },
      { method: 'live', run: (s) => s.live(CHAT, AT) },
      { method: 'deleteExpired', run: (s) => s.deleteExpired(AT) },
    ],
  }),
  store<StaffAuditStore>({
    file: 'apps/bot-api/src/staff-deliveries/staff-audit.store.ts',
    create: (recorder) => new StaffAuditStore(recorder.asDatabase()),
    examples: [
      {
        method: 'record',
        run: (s, tx) =>
          s.record(tx, {
            actorId: 'staff-1',
            action: 'redrive.start',
            target: JOB,
            filter: { status: 'dead_letter' },
            counts: { total: 3 },
          }),
      },
      { method: 'page (first)', run: (s) => s.page(51, null, null) },
      {
        method: 'page (after, one action)',
        run: (s) => s.page(51, { at: AT.toISOString(), id: '73' }, 'redrive.start'),
      },
    ],
  }),
  store<RedriveJobsStore>({
    file: 'apps/bot-api/src/staff-deliveries/redrive-jobs.store.ts',
    create: (recorder) => new RedriveJobsStore(recorder.asDatabase()),
    examples: [
      {
        method: 'create',
        run: (s, tx) =>
          recordedOnly(
            s.create(
              tx,
              { botId: BOT, since: null, until: null, errorClass: null },
              { status: 'dead_letter' },
              5,
              'staff-1',
            ),
          ),
      },
      { method: 'createAutomatic', run: (s, tx) => recordedOnly(s.createAutomatic(tx, BOT, { bot_id: BOT }, 5)) },
      { method: 'find', run: (s, tx) => s.find(JOB, tx) },
      { method: 'recent', run: (s) => s.recent(21, { createdAt: AT.toISOString(), id: JOB }) },
      { method: 'countsPerBot', run: (s) => s.countsPerBot(JOB) },
      { method: 'cancel', run: (s, tx) => s.cancel(tx, JOB) },
      { method: 'running', run: (s) => s.running(100, 30_000) },
      { method: 'lockRunning', run: (s, tx) => s.lockRunning(tx, JOB) },
      { method: 'next', run: (s, tx) => s.next(tx, JOB, 5) },
      { method: 'settle', run: (s, tx) => s.settle(tx, JOB, [DELIVERY], [OTHER_DELIVERY], 'no longer a dead letter') },
      { method: 'take', run: (s, tx) => s.take(tx, JOB, [DELIVERY, OTHER_DELIVERY]) },
      { method: 'completeIfDrained', run: (s, tx) => s.completeIfDrained(tx, JOB) },
      { method: 'countRunning', run: (s) => s.countRunning() },
    ],
  }),
];
