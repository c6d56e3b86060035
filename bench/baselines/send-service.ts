/**
 * Baseline for sendMessage: node:http + pg + BullMQ, with named prepared statements.
 *
 * POST /sendMessage runs:
 *   1. bot lookup by the token's SHA-256 hash (enabled bots only)
 *   2. membership check: the bot is an active member of the chat
 *   then ONE transaction: BEGIN, message INSERT … RETURNING, outbox INSERT, COMMIT
 *   and after the commit a BullMQ `add` of the outbox row (a job for the delivery worker), on the run's
 *   backend (Redis, or BullMQ's PostgreSQL backend in the PostgreSQL-only mode; see queue.ts).
 */
import { createServer, IncomingMessage } from 'node:http';
import { Queue } from 'bullmq';
import { tokenHash } from './schema';
import { baselinePool, readBody, sendJson } from './plumbing';
import { baselineQueueOptions } from './queue';

const pool = baselinePool();
const queue = new Queue('baseline-outbox', {
  ...baselineQueueOptions(process.env, 'producer', 'send-baseline'),
  defaultJobOptions: { removeOnComplete: true, removeOnFail: 1000 },
});

const SQL = {
  bot: { name: 'bot_by_token', text: `SELECT id FROM bots WHERE token_hash = $1 AND status = 'enabled'` },
  member: {
    name: 'bot_in_chat',
    text: `SELECT 1 FROM chat_members WHERE chat_id = $1 AND user_id = $2 AND state = 'active'`,
  },
  message: {
    name: 'insert_message',
    text: `INSERT INTO messages (chat_id, sender_id, kind, text) VALUES ($1, $2, 'text', $3) RETURNING id, created_at`,
  },
  outbox: { name: 'insert_outbox', text: `INSERT INTO outbox (message_id, payload) VALUES ($1, $2) RETURNING id` },
};

async function sendMessage(req: IncomingMessage): Promise<[number, unknown]> {
  const body = JSON.parse((await readBody(req)).toString('utf8'));
  if (typeof body?.chat_id !== 'string' || typeof body?.text !== 'string') return [400, { success: false }];
  const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
  const bot = await pool.query({ ...SQL.bot, values: [tokenHash(token)] });
  if (bot.rowCount === 0) return [401, { success: false, code: 'UNAUTHORIZED' }];
  const botId = bot.rows[0].id as string;
  const member = await pool.query({ ...SQL.member, values: [body.chat_id, botId] });
  if (member.rowCount === 0) return [403, { success: false, code: 'FORBIDDEN' }];
  const db = await pool.connect();
  let message: { id: string; created_at: Date };
  let outboxId: string;
  try {
    await db.query('BEGIN');
    try {
      message = (await db.query({ ...SQL.message, values: [body.chat_id, botId, body.text] })).rows[0];
      const payload = { message_id: message.id, chat_id: body.chat_id, text: body.text };
      outboxId = (await db.query({ ...SQL.outbox, values: [message.id, payload] })).rows[0].id;
      await db.query('COMMIT');
    } catch (error) {
      await db.query('ROLLBACK');
      throw error;
    }
  } finally {
    db.release();
  }
  await queue.add('deliver', { outboxId });
  return [
    200,
    {
      success: true,
      data: { message_id: Number(message.id), chat: { id: body.chat_id }, text: body.text, date: message.created_at },
    },
  ];
}

// Ready once the queue's connection is: the first measured request must not pay for opening it.
let queueReady = false;
void queue.waitUntilReady().then(() => {
  queueReady = true;
});

createServer((req, res) => {
  if (req.url === '/ready') return sendJson(res, queueReady ? 200 : 503, { ready: queueReady });
  // Served under any prefix, so the load driver sends the very requests it sends to bot-api.
  if (req.method !== 'POST' || !req.url?.endsWith('/sendMessage')) return sendJson(res, 404, { success: false });
  sendMessage(req)
    .then(([status, body]) => sendJson(res, status, body))
    .catch((error: Error) => sendJson(res, 500, { success: false, message: error.message }));
}).listen(Number(process.env.PORT), '127.0.0.1');
