import { randomBytes } from 'node:crypto';
import { getQueueToken } from '@nestjs/bullmq';
import { generateSecretToken } from '@app/auth';
import { WEBHOOK_QUEUE } from '@app/bot-delivery';
import type { WarmUpPlan } from '@app/platform';
import { PostMessageRehearsal } from './messages/post-rehearsal';

const base64url = (value: object | Buffer) =>
  (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

/** A well-formed account JWT whose signature is random: verification runs in full and refuses it. */
function unsignedAccountJwt(): string {
  const header = base64url({ alg: 'HS256', typ: 'JWT' });
  const claims = base64url({ sub: 'warm-up', name: 'warm-up', exp: Math.floor(Date.now() / 1000) + 60 });
  return `${header}.${claims}.${base64url(randomBytes(32))}`;
}

/**
 * sendMessage and a user's message, the hot routes, with credentials that name nobody: a bot token
 * drawn at random (looked up, not found: 401, and not counted against the loopback address, see
 * clientAddressOf) and an account JWT that fails its signature check (401). Nothing is written. The
 * webhook queue's producer connects too, which the first send would otherwise wait for, and a user's
 * message is rehearsed past the guard (PostMessageRehearsal), the part the requests cannot reach.
 */
export function botWarmUp(): WarmUpPlan {
  const chatId = String(1_000_000_000 + Math.floor(Math.random() * 1_000_000_000));
  return {
    requests: [
      {
        method: 'POST',
        path: '/api/v1/bots/sendMessage',
        headers: { authorization: `Bearer ${generateSecretToken('sbot_')}` },
        body: { chat_id: chatId, text: 'warm-up' },
      },
      {
        method: 'POST',
        path: `/api/v1/bots/client/chats/${chatId}/messages`,
        headers: { authorization: `Bearer ${unsignedAccountJwt()}` },
        body: { text: 'warm-up' },
      },
    ],
    queues: [getQueueToken(WEBHOOK_QUEUE)],
    rehearsal: (app, tx) => app.get(PostMessageRehearsal, { strict: false }).run(tx),
  };
}
