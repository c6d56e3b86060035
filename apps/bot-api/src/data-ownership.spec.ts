import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  AllowedUse,
  codeMapProblems,
  createdTables,
  describeWriters,
  entityTables,
  fragmentUses,
  ownershipProblems,
  readSources,
  REPO_ROOT,
  tableUses,
  tableWriters,
} from '@app/testing';

const BOT_API = 'apps/bot-api/src/';
const DELIVERY_SIDE = 'libs/bot-delivery/src/bot-database/';

/**
 * Every table of the bot database and the one store file that owns it: its statements and the
 * predicates of its rules live there, and every other module calls it. Bot delivery (a bot's
 * delivery settings, webhook deliveries and their attempts, the Update outbox and its confirmation,
 * Telegram aliases), which bot-dispatcher runs too, lives once in @app/bot-delivery.
 */
const OWNERS: Record<string, string> = {
  users: `${BOT_API}users/users.store.ts`,
  bots: `${BOT_API}bots/bots.store.ts`,
  bot_commands: `${BOT_API}profile/bot-commands.store.ts`,
  bot_friends: `${BOT_API}friends/bot-friends.store.ts`,
  friend_requests: `${BOT_API}friends/friend-requests.store.ts`,
  files: `${BOT_API}files/files.store.ts`,
  file_uploads: `${BOT_API}files/file-uploads.store.ts`,
  chats: `${BOT_API}chats/chats.store.ts`,
  chat_members: `${BOT_API}chats/chats.store.ts`,
  chat_join_requests: `${BOT_API}chats/chats.store.ts`,
  messages: `${BOT_API}messages/messages.store.ts`,
  message_receipts: `${BOT_API}messages/message-receipts.store.ts`,
  updates: `${DELIVERY_SIDE}updates.store.ts`,
  chat_actions: `${BOT_API}messages/chat-actions.store.ts`,
  webhook_deliveries: `${DELIVERY_SIDE}webhook-deliveries.store.ts`,
  webhook_delivery_attempts: `${DELIVERY_SIDE}webhook-delivery-attempts.store.ts`,
  idempotency_keys: 'libs/idempotency/src/idempotency.store.ts',
  delivery_redrive_jobs: `${BOT_API}staff-deliveries/redrive-jobs.store.ts`,
  delivery_redrive_items: `${BOT_API}staff-deliveries/redrive-jobs.store.ts`,
  staff_audit_log: `${BOT_API}staff-deliveries/staff-audit.store.ts`,
  callback_queries: `${BOT_API}interaction/interaction-queries.store.ts`,
  inline_queries: `${BOT_API}interaction/interaction-queries.store.ts`,
  virtual_members: `${BOT_API}virtual-members/virtual-members.store.ts`,
  virtual_member_audit_log: `${BOT_API}virtual-members/virtual-member-audit.store.ts`,
  bot_delivery_settings: `${DELIVERY_SIDE}bot-delivery-settings.store.ts`,
  telegram_aliases: `${DELIVERY_SIDE}telegram-aliases.store.ts`,
};

/** Reads that span tables of several owners: each lives with the rule it enforces. Writes never do. */
const CROSS_TABLE: AllowedUse[] = [
  {
    at: `${BOT_API}chats/chats.store.ts#activeBotMembers`,
    tables: ['bots', 'bot_delivery_settings'],
    reason:
      "the available bots among a chat's active members, with the Update types they take: who receives the chat's Updates",
  },
  {
    at: `${BOT_API}chats/chats.store.ts#ChatsStore.botOfUser`,
    tables: ['bots', 'bot_delivery_settings'],
    reason: 'the bot behind a system user, with its rank in the chat for the Update it receives',
  },
  {
    at: `${BOT_API}bots/bots.store.ts#selectBots`,
    tables: ['bot_delivery_settings'],
    reason: 'a bot is read with the delivery settings its own row shows (mode, allowed updates, self-healing switch)',
  },
  {
    at: `${BOT_API}bots/bots.store.ts#BotsStore.usernameTaken`,
    tables: ['users'],
    reason: 'bots and the system users that carry their names into chats share one username namespace',
  },
  {
    at: `${BOT_API}bots/bots.store.ts#BotsStore.takenUsernames`,
    tables: ['users'],
    reason: 'a derived username is picked from the same namespace: bots and the system users of bots',
  },
  {
    at: `${BOT_API}chats/chats.store.ts#ChatsStore.pin`,
    tables: ['messages'],
    reason: 'only a live message of the same chat can be pinned; the statement that pins checks it',
  },
  {
    at: `${BOT_API}files/files.store.ts#FilesStore.postedToMemberOf`,
    tables: ['messages', 'chat_members'],
    reason: 'a file is visible to the active members of a chat it was posted in',
  },
  {
    at: `${BOT_API}files/files.store.ts#FilesStore.lockUnreferenced`,
    tables: ['messages'],
    reason: 'a file is purged only while no message references it; the statement that locks it for removal checks it',
  },
  {
    at: `${BOT_API}files/files.store.ts#OWNED_IMAGE`,
    tables: ['bots'],
    reason:
      "other services' cover-image check: one statement decides existence, image type and ownership (the account's uploads and its bots')",
  },
  {
    at: `${BOT_API}files/files.store.ts#FilesStore.carriersSeenBy`,
    tables: ['messages', 'chat_members', 'chats'],
    reason:
      "a person's upload is visible to a bot that received a message carrying it: one statement reads those messages with their chat type and membership, group privacy decides",
  },
  {
    at: `${BOT_API}messages/messages.store.ts#INSERT_AS_MEMBER`,
    tables: ['chats', 'chat_members', 'users'],
    reason: 'sendMessage is one statement: only an active member writes, and the chat and sender come back with it',
  },
  {
    at: `${BOT_API}messages/messages.store.ts#RESERVE_AS_MEMBER`,
    tables: ['chats', 'chat_members', 'users'],
    reason: "a person's message, read step: membership, reply target and the chat's bots in one statement",
  },
  {
    at: `${BOT_API}messages/messages.store.ts#INSERT_RESERVED`,
    tables: ['chat_members'],
    reason: "a person's message, write step: written only while the sender is still an active member",
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#insertDeliveries`,
    tables: ['bot_delivery_settings'],
    reason: 'a delivery is created only for a bot in webhook mode, as the statement that creates it reads it',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#DELIVER_BACKLOG`,
    tables: ['updates'],
    reason: 'a bot switching to webhook mode gets a delivery for every Update it has not confirmed',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#ADOPT_ORPHANS`,
    tables: ['bot_delivery_settings', 'updates'],
    reason: 'Updates of webhook bots that missed their delivery during a concurrent mode switch get one',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#LOAD_DELIVERIES`,
    tables: ['bots', 'bot_delivery_settings'],
    reason: 'a job reads its bot’s current delivery settings and availability with its delivery',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#RECORD_ATTEMPTS`,
    tables: ['bot_delivery_settings'],
    reason:
      'a success marks a recovered bot only while its self-healing switch is on (read here; the bot side ' +
      "of the outcome is written by the settings store's recordBotOutcomes, run in the same statement)",
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#OVERDUE`,
    tables: ['bots', 'bot_delivery_settings'],
    reason: 'only deliveries of available webhook bots are enqueued again',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#DELIVERY_PAGE`,
    tables: ['bots'],
    reason: "the console's page answers 404 for another owner's bot from the same statement",
  },
  ...['STAFF_DELIVERY_PAGE', 'STAFF_TOP_BOTS', 'STAFF_DELIVERY_DETAIL'].map((statement) => ({
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#${statement}`,
    tables: statement === 'STAFF_DELIVERY_PAGE' ? ['bots'] : ['bots', 'bot_delivery_settings'],
    reason: "platform staff see each delivery with its bot's name and owner from the statement that lists it",
  })),
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#redrivableDeadLetters`,
    tables: ['bots', 'bot_delivery_settings'],
    reason: 'a redrive takes only dead letters of bots that can receive them (webhook mode, available)',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#RESTART_FOR_STAFF`,
    tables: ['bot_delivery_settings'],
    reason: 'a staff redelivery restarts a delivery only while its bot is in webhook mode, checked as it restarts',
  },
  {
    at: `${DELIVERY_SIDE}webhook-deliveries.store.ts#autoRedrivableDeadLetters`,
    tables: ['bots', 'bot_delivery_settings'],
    reason:
      'an automatic redrive takes dead letters only while their bot has auto_redeliver_dead_letters on and can receive them',
  },
  {
    at: `${DELIVERY_SIDE}bot-delivery-settings.store.ts#DELIVERY_MODE_OF_OWNED`,
    tables: ['bots'],
    reason: "the console's delivery routes answer 404 for another owner's bot from the statement that reads its mode",
  },
];

describe('data ownership of the bot database', () => {
  const migrations = [
    ...readSources(REPO_ROOT, `${BOT_API}database/migrations`),
    ...readSources(REPO_ROOT, 'libs/idempotency/src', (path) => !path.endsWith('.migration.ts')),
  ];
  const sources = [
    ...readSources(REPO_ROOT, BOT_API, (path) => path.startsWith(`${BOT_API}database/migrations/`)),
    ...readSources(REPO_ROOT, 'libs/bot-delivery/src'),
    ...readSources(REPO_ROOT, 'libs/idempotency/src', (path) => path.endsWith('.migration.ts')),
  ];
  const tables = createdTables(migrations);
  const uses = tableUses(sources, tables, entityTables(sources));

  it('finds the tables the migrations create and the statements that use them', () => {
    expect(tables).toContain('bots');
    expect(tables).toContain('idempotency_keys');
    expect(uses.filter((use) => use.table === 'bots').length).toBeGreaterThan(20);
  });

  it('gives every table exactly one owner, and every owner exists', () => {
    expect(Object.keys(OWNERS).sort()).toEqual([...tables].sort());
    for (const owner of new Set(Object.values(OWNERS))) expect(existsSync(join(REPO_ROOT, owner))).toBe(true);
  });

  it('lets no module query a table it does not own, except the cross-table reads listed with their reason', () => {
    expect(ownershipProblems(uses, { owners: OWNERS, allowed: CROSS_TABLE })).toEqual([]);
  });

  it('has one writer per table: the file that owns it, also through spliced fragments', () => {
    console.info(`bot database: table <- writing file\n${describeWriters(uses, fragmentUses(sources, uses))}`);
    const writers = tableWriters(uses);
    for (const table of tables) {
      expect({ table, writers: writers.get(table) ?? [] }).toEqual({ table, writers: [OWNERS[table]] });
    }
  });

  it('states the rule "a bot is available" once, for both processes', () => {
    const rule = /review_?status\s*={1,3}\s*'approved'\s*(?:AND|&&)\s*[\w.]*status\s*={1,3}\s*'enabled'/i;
    const restated = [...sources, ...readSources(REPO_ROOT, 'apps/bot-dispatcher/src')]
      .filter((source) => rule.test(source.text))
      .map((source) => source.path);
    expect(restated).toEqual([]);
  });

  it('is what docs/code-map.md says: every folder, and each table under the folder that writes it', () => {
    const owners = Object.fromEntries(
      Object.entries(OWNERS).map(([table, owner]) => [
        table,
        owner.startsWith(BOT_API) ? owner.slice(BOT_API.length) : null,
      ]),
    );
    expect(codeMapProblems(REPO_ROOT, 'bot-api', owners)).toEqual([]);
  });
});
