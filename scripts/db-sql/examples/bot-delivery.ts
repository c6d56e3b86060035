import { BotDeliverySettingsStore } from '../../../libs/bot-delivery/src/bot-database/bot-delivery-settings.store';
import { DeliveryStore } from '../../../libs/bot-delivery/src/bot-database/delivery.store';
import { StaffDeliveryStore } from '../../../libs/bot-delivery/src/bot-database/staff-delivery.store';
import { TelegramAliasesStore } from '../../../libs/bot-delivery/src/bot-database/telegram-aliases.store';
import { UpdateOutbox } from '../../../libs/bot-delivery/src/bot-database/update-outbox';
import { UpdatesStore } from '../../../libs/bot-delivery/src/bot-database/updates.store';
import { store, type StoreExamples } from '../example-types';

const BOT = 'b0b0b0b0b0b0b0b0b0b0b0b0';
const OWNER = 'owner-1';
const DELIVERY = '11111111-1111-4111-8111-111111111111';
const UPDATE = '22222222-2222-4222-8222-222222222222';
const CREATED_AT = '2026-01-01T12:00:00.000Z';
const SINCE = '2026-01-01T00:00:00.000Z';
const UNTIL = '2026-01-02T00:00:00.000Z';
const FILTER = { status: 'dead_letter', botId: BOT, since: SINCE, until: UNTIL, errorClass: 'timeout' } as const;
const ANY = { status: null, botId: null, since: null, until: null, errorClass: null } as const;
const UPDATES = {
  update_ids: [UPDATE],
  update_bot_ids: [BOT],
  update_types: ['message'],
  update_payloads: ['{"message":{}}'],
  update_created_ats: [null],
};

export const STORE_EXAMPLES: readonly StoreExamples[] = [
  store<UpdateOutbox>({
    file: 'libs/bot-delivery/src/bot-database/update-outbox.ts',
    create: () => new UpdateOutbox(),
    examples: [{ method: 'write', run: (s, tx) => s.write(tx, UPDATES) }],
  }),
  store<UpdatesStore>({
    file: 'libs/bot-delivery/src/bot-database/updates.store.ts',
    create: (recorder) => new UpdatesStore(recorder.asDatabase()),
    examples: [
      { method: 'pending', run: (s) => s.pending(BOT, 5, 24, 100) },
      { method: 'acknowledgeBelow', run: (s) => s.acknowledgeBelow(BOT, 5) },
      { method: 'acknowledgeAllButLast', run: (s) => s.acknowledgeAllButLast(BOT, 1) },
      { method: 'acknowledgeAll', run: (s, tx) => s.acknowledgeAll(tx, BOT) },
    ],
  }),
  store<DeliveryStore>({
    file: 'libs/bot-delivery/src/bot-database/delivery.store.ts',
    create: (recorder) => new DeliveryStore(recorder.asDatabase()),
    examples: [
      { method: 'deliverBacklog', run: (s, tx) => s.deliverBacklog(tx, BOT, 24) },
      { method: 'withdrawOpen', run: (s, tx) => s.withdrawOpen(tx, BOT) },
      { method: 'pendingCount (webhook)', run: (s) => s.pendingCount(BOT, true, 24) },
      { method: 'pendingCount (polling)', run: (s) => s.pendingCount(BOT, false, 24) },
      { method: 'backlog', run: (s) => s.backlog(BOT) },
      { method: 'openBacklogByBot', run: (s) => s.openBacklogByBot(10) },
      { method: 'page', run: (s) => s.page(OWNER, BOT, 'dead_letter', 20, 40) },
      { method: 'count', run: (s) => s.count(BOT, null) },
      { method: 'count (in status)', run: (s) => s.count(BOT, 'succeeded') },
      { method: 'findByUpdateId', run: (s, tx) => s.findByUpdateId(tx, BOT, UPDATE) },
      { method: 'findById', run: (s, tx) => s.findById(tx, DELIVERY) },
      { method: 'attempts', run: (s) => s.attempts(DELIVERY) },
      { method: 'restartFinished', run: (s, tx) => s.restartFinished(tx, DELIVERY) },
      { method: 'restartDeadLetters', run: (s, tx) => s.restartDeadLetters(tx, BOT, SINCE, UNTIL) },
      { method: 'restartDeadLetters (all)', run: (s, tx) => s.restartDeadLetters(tx, BOT, null, null) },
      {
        method: 'loadMany',
        run: (s) =>
          s.loadMany([{ deliveryId: DELIVERY, series: 1, priorAttempts: 0, botId: BOT, createdAt: CREATED_AT }]),
      },
      {
        method: 'recordMany',
        run: (s) =>
          s.recordMany([
            {
              delivery: { id: DELIVERY, series: 1 },
              attempt: 1,
              result: { ok: false, statusCode: 503, latencyMs: 120, error: 'HTTP 503', retryAfterMs: 30_000 },
              outcome: 'retrying',
              retryDelayMs: 60_000,
            },
          ]),
      },
      { method: 'overdue', run: (s) => s.overdue(60_000, 100) },
      { method: 'adoptOrphans', run: (s) => s.adoptOrphans(60_000, 100) },
    ],
  }),
  store<StaffDeliveryStore>({
    file: 'libs/bot-delivery/src/bot-database/staff-delivery.store.ts',
    create: (recorder) => new StaffDeliveryStore(recorder.asDatabase()),
    examples: [
      { method: 'page (filtered, after a cursor)', run: (s) => s.page(FILTER, { eventAt: SINCE, id: DELIVERY }, 50) },
      { method: 'page (first, unfiltered)', run: (s) => s.page(ANY, null, 50) },
      { method: 'statusCounts', run: (s) => s.statusCounts(SINCE, UNTIL) },
      { method: 'deadLettersByClass', run: (s) => s.deadLettersByClass(SINCE, null) },
      { method: 'topBots', run: (s) => s.topBots(null, UNTIL, 10) },
      { method: 'detail', run: (s) => s.detail(UPDATE) },
      { method: 'countRedrivable', run: (s) => s.countRedrivable({ ...FILTER }) },
      { method: 'restart', run: (s, tx) => s.restart(tx, [DELIVERY], ['dead_letter'], 'staff') },
    ],
  }),
  store<BotDeliverySettingsStore>({
    file: 'libs/bot-delivery/src/bot-database/bot-delivery-settings.store.ts',
    create: (recorder) => new BotDeliverySettingsStore(recorder.asDatabase()),
    examples: [
      { method: 'create', run: (s, tx) => s.create(tx, BOT) },
      {
        method: 'setWebhook',
        run: (s, tx) =>
          s.setWebhook(tx, BOT, {
            url: 'https://hooks.example/bot',
            sealedSecret: 'sealed-secret',
            previousSealedSecret: 'sealed-previous',
            previousSecretExpiresAt: new Date(UNTIL),
            allowedIps: ['203.0.113.0/24'],
            maxConnections: 40,
            allowedUpdates: ['message'],
            format: 'telegram',
          }),
      },
      {
        method: 'setWebhook (keeping allowed_updates)',
        run: (s, tx) =>
          s.setWebhook(tx, BOT, {
            url: 'https://hooks.example/bot',
            sealedSecret: 'sealed-secret',
            allowedIps: null,
            maxConnections: 40,
          }),
      },
      { method: 'webhookSecretsForUpdate', run: (s, tx) => s.webhookSecretsForUpdate(tx, BOT) },
      { method: 'clearWebhook', run: (s, tx) => s.clearWebhook(tx, BOT, 40) },
      { method: 'webhookSettings', run: (s) => s.webhookSettings(BOT) },
      { method: 'deliveryModeOfOwned', run: (s, tx) => s.deliveryModeOfOwned(tx, OWNER, BOT) },
      { method: 'deliveryModeOfOwned (locked)', run: (s, tx) => s.deliveryModeOfOwned(tx, OWNER, BOT, true) },
      { method: 'setAllowedUpdates', run: (s) => s.setAllowedUpdates(BOT, ['message', 'callback_query']) },
      { method: 'setAutoRedeliver', run: (s, tx) => s.setAutoRedeliver(tx, BOT, true) },
      { method: 'anyRecovered', run: (s) => s.anyRecovered() },
      { method: 'recoveredBots', run: (s, tx) => s.recoveredBots(tx, 10) },
      { method: 'clearRecovered', run: (s, tx) => s.clearRecovered(tx, [BOT]) },
    ],
  }),
  store<TelegramAliasesStore>({
    file: 'libs/bot-delivery/src/bot-database/telegram-aliases.store.ts',
    create: (recorder) => new TelegramAliasesStore(recorder.asDatabase()),
    examples: [
      // The recorder's empty rows give no alias, so the call asks twice and then refuses: both asks are recorded.
      { method: 'aliases', run: (s) => s.aliases({ chat: ['chat-1'], user: [] }).catch(() => undefined) },
      { method: 'nativeOf', run: (s) => s.nativeOf('user', 42) },
    ],
  }),
];
