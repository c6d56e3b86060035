import { eventually, HttpsReceiver, startHttpsReceiver } from '@app/testing';
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import { WebhookSender, WebhookTarget } from '../src/delivery/webhook-sender';

const UPDATE_ID = '0d5e2b9a-7c41-4f3e-9b1a-6e2f8c4d1a22';

describe('webhook connections across many bots (real HTTPS receiver)', () => {
  let receiver: HttpsReceiver;
  let ca: string;
  const senders: WebhookSender[] = [];

  const target = (botId: string): WebhookTarget => ({
    botId,
    url: receiver.url,
    secret: 'agents_secret',
    allowedIps: null,
    maxConnections: 4,
  });
  const body = Buffer.from(JSON.stringify({ update_id: UPDATE_ID, type: 'message' }), 'utf8');
  const sender = (options: { maxAgents?: number; agentIdleMs?: number } = {}) => {
    const created = new WebhookSender({ timeoutMs: 10_000, allowPrivate: true, ca, ...options });
    senders.push(created);
    return created;
  };

  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    ca = readFileSync(receiver.caFile, 'utf8');
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    receiver.answer(() => 200);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await Promise.all(senders.map((s) => s.close()));
    await receiver.close();
  });

  it('builds one TLS context for every connection to every bot, instead of one per connection', async () => {
    const contexts = jest.spyOn(tls, 'createSecureContext');
    const shared = sender();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => shared.send(target(`tls-bot-${i}`), body, UPDATE_ID)),
    );
    expect(results.filter((result) => !result.ok)).toEqual([]);
    // Six bots, so six Agents and at least six TLS connections.
    expect(new Set(receiver.requests.map((r) => r.socketId)).size).toBeGreaterThanOrEqual(6);
    expect(contexts).toHaveBeenCalledTimes(1);
  });

  it('keeps at most maxAgents bots connected, closing the least recently used, and still delivers to it later', async () => {
    const bounded = sender({ maxAgents: 2 });
    for (const bot of ['a', 'b', 'c']) expect((await bounded.send(target(bot), body, UPDATE_ID)).ok).toBe(true);
    expect(bounded.agentCount).toBe(2);
    // 'a' was evicted: it gets a new Agent (evicting 'b'), and its delivery still goes through.
    expect((await bounded.send(target('a'), body, UPDATE_ID)).ok).toBe(true);
    expect(bounded.agentCount).toBe(2);
    expect(receiver.requests).toHaveLength(4);
  });

  it('keeps the recently used bot when it evicts', async () => {
    const bounded = sender({ maxAgents: 2 });
    await bounded.send(target('first'), body, UPDATE_ID);
    await bounded.send(target('second'), body, UPDATE_ID);
    await bounded.send(target('first'), body, UPDATE_ID);
    await bounded.send(target('third'), body, UPDATE_ID);
    const sockets = new Set(receiver.requests.map((r) => r.socketId));
    await bounded.send(target('first'), body, UPDATE_ID);
    // 'first' kept its Agent, so its keep-alive connection is reused rather than a new one opened.
    expect(sockets.has(receiver.requests[4].socketId)).toBe(true);
  });

  it('does not count an Agent idle while its request outlasts agentIdleMs', async () => {
    const slowAnswer = sender({ agentIdleMs: 100 });
    receiver.answer(() => ({ status: 200, delayMs: 400 }));
    expect((await slowAnswer.send(target('slow'), body, UPDATE_ID)).ok).toBe(true);
    expect(slowAnswer.agentCount).toBe(1);
  });

  it('closes the Agent of a bot idle for agentIdleMs', async () => {
    const idle = sender({ agentIdleMs: 100 });
    await idle.send(target('sleepy'), body, UPDATE_ID);
    expect(idle.agentCount).toBe(1);
    await eventually(() => expect(idle.agentCount).toBe(0), 350);
    expect((await idle.send(target('sleepy'), body, UPDATE_ID)).ok).toBe(true);
  });
});
