import { createHmac, timingSafeEqual } from 'node:crypto';
import { request } from 'node:http';
import type { ReceivedRequest } from '@app/testing';
import type { InFlightRequest, Replica } from './fleet';
import { REPLICA_HEADER } from './round-robin-proxy';

/** One answer as the traffic saw it; status 0 when none came (the connection failed). */
export interface Answer {
  status: number;
  /** The JSON answer of whichever route, or its text. */
  body: any;
  /** The replica that answered (`bot-api previous #2`), from the proxy's header. */
  replica: string;
  replayed: boolean;
}

/** Where the upgrade stands, in order; every answer is counted under the phase it came in. */
export const PHASES = [
  'previous release',
  'new migrations running',
  'previous release on the new schema',
  'rolling update',
  'new build',
  'rolling back bot-api',
  'bot-api rolled back',
  'shutting down',
] as const;
export type Phase = (typeof PHASES)[number];

/** How many problems are kept with their details for the report; all of them are counted. */
const KEPT_DETAILS = 20;

/**
 * Every answer the traffic got: how many, which replicas gave them in which phase, the answers of 5xx (or
 * none), and the answers that were not what the flow expects (a refusal where a success was due).
 */
export class Ledger {
  phase: Phase = 'previous release';
  answers = 0;
  failures = 0;
  unexpected = 0;
  readonly details: string[] = [];
  private readonly served = new Map<string, number>();
  private readonly problems = new Map<string, number>();

  record(what: string, answer: Answer): void {
    this.answers += 1;
    this.count(this.served, answer);
    if (answer.status === 0 || answer.status >= 500) {
      this.failures += 1;
      this.count(this.problems, answer);
      this.keep(`${answer.status || 'no answer'} for ${what} from ${answer.replica}: ${JSON.stringify(answer.body)}`);
    }
  }

  /** An answer that is no 5xx but breaks the flow, e.g. the old code refusing what it used to accept. */
  wrong(what: string, answer: Answer, expected: string): void {
    if (answer.status === 0 || answer.status >= 500) return; // counted (and kept) as a failure already
    this.unexpected += 1;
    this.count(this.problems, answer);
    this.keep(`${what} from ${answer.replica}: ${answer.status} ${JSON.stringify(answer.body)}, expected ${expected}`);
  }

  /** Answers given in `phase` by replicas of `replica` (e.g. `voucher-api previous`). */
  servedIn(phase: Phase, replica: string): number {
    return this.served.get(`${phase}|${replica}`) ?? 0;
  }

  /** Answers given from `phase` on by replicas of `replica`, and how many of them were 5xx or not as expected. */
  servedFrom(phase: Phase, replica: string): { answers: number; problems: number } {
    const later = PHASES.slice(PHASES.indexOf(phase));
    const sum = (counts: Map<string, number>) =>
      later.reduce((total, name) => total + (counts.get(`${name}|${replica}`) ?? 0), 0);
    return { answers: sum(this.served), problems: sum(this.problems) };
  }

  private count(counts: Map<string, number>, answer: Answer): void {
    // `bot-api previous #2` counts as `bot-api previous`.
    const key = `${this.phase}|${answer.replica.replace(/ #\d+$/, '')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }

  private keep(detail: string): void {
    if (this.details.length < KEPT_DETAILS) this.details.push(`[${this.phase}] ${detail}`);
  }
}

/** A client of one API through its proxy; every answer goes into the ledger. */
export class ApiClient {
  constructor(
    private readonly base: string,
    private readonly ledger: Ledger,
  ) {}

  async call(
    method: 'GET' | 'POST',
    path: string,
    options: { token: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<Answer> {
    const what = `${method} ${path.split('?')[0]}`;
    let answer: Answer;
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text for the report
      }
      answer = {
        status: res.status,
        body,
        replica: res.headers.get(REPLICA_HEADER) ?? 'the proxy',
        replayed: res.headers.get('idempotent-replayed') === 'true',
      };
    } catch (error) {
      answer = { status: 0, body: (error as Error).message, replica: 'no replica', replayed: false };
    }
    this.ledger.record(what, answer);
    return answer;
  }
}

/**
 * Runs `work(1)`, `work(2)`, … one after the other, each started no sooner than `intervalMs` after the
 * one before, until `stop()`: traffic at a steady rate rather than as fast as the machine allows, so
 * that the figures are about the upgrade and not about a saturated box.
 */
export function paced(intervalMs: number, work: (n: number) => Promise<void>): { stop(): Promise<void> } {
  let running = true;
  const loop = (async () => {
    for (let n = 1; running; n++) {
      const startedAt = Date.now();
      await work(n);
      const rest = intervalMs - (Date.now() - startedAt);
      if (rest > 0 && running) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
    },
  };
}

const API = '/api/v1/open-platform';

/** The template's per-user limit (its highest): each redeem loop moves to a new holder after so many vouchers. */
export const VOUCHERS_PER_HOLDER = 100;

export interface VoucherSetup {
  appToken: string;
  applicationId: string;
  templateId: string;
  /** The redeem loop's own holders are `upgrade-holder-<loop>-<k>`. */
  loop: number;
  /** An account JWT of the given user. */
  jwtOf(user: string): Promise<string>;
}

/** What the redeem traffic saw. */
export class RedeemFigures {
  issued = 0;
  redeemed = 0;
  /** Retries with the redeem's own key that answered the same redemption, marked as replayed. */
  replayedSame = 0;
  /** Second redeems of a redeemed voucher, with a key of their own, refused with 409. */
  secondRefused = 0;
  /** Vouchers for which the API answered a second, different redemption. */
  redeemedTwice = 0;
}

/**
 * One cycle of a redeem loop: a voucher issued to its holder (with an idempotency key), its code read
 * from their wallet, redeemed, the redeem retried with the same key (the same redemption must come back,
 * replayed), and redeemed again with another key (refused: the voucher is spent). Every
 * VOUCHERS_PER_HOLDER cycles a new holder first lets the application issue to them.
 */
export async function redeemCycle(
  api: ApiClient,
  ledger: Ledger,
  setup: VoucherSetup,
  figures: RedeemFigures,
  n: number,
): Promise<void> {
  const holderId = `upgrade-holder-${setup.loop}-${Math.ceil(n / VOUCHERS_PER_HOLDER)}`;
  const holder = { id: holderId, jwt: await setup.jwtOf(holderId) };
  if ((n - 1) % VOUCHERS_PER_HOLDER === 0) {
    const consent = await api.call('POST', `${API}/holder/authorizations`, {
      token: holder.jwt,
      body: { application_id: setup.applicationId },
    });
    if (consent.status !== 200) return ledger.wrong(`consent of ${holderId}`, consent, '200');
  }
  const key = `${setup.loop}-${n}`;
  const app = { token: setup.appToken };
  const issued = await api.call('POST', `${API}/vouchers/issue`, {
    ...app,
    headers: { 'idempotency-key': `issue-${key}` },
    body: { template_id: setup.templateId, external_issue_id: `order-${key}`, recipient_user_id: holder.id },
  });
  const voucherId: string | undefined = issued.body?.data?.voucher?.id;
  if (issued.status !== 201 || !voucherId) return ledger.wrong(`issue ${key}`, issued, '201 with the voucher');
  figures.issued += 1;
  const wallet = await api.call('GET', `${API}/holder/vouchers?page=1&pageSize=1`, { token: holder.jwt });
  const newest = wallet.body?.data?.items?.[0];
  if (wallet.status !== 200 || newest?.id !== voucherId || typeof newest?.redeem_code !== 'string') {
    return ledger.wrong(`wallet after issue ${key}`, wallet, `200 with voucher ${voucherId} and its code first`);
  }
  const redeem = (idempotencyKey: string, order: string) =>
    api.call('POST', `${API}/vouchers/redeem`, {
      ...app,
      headers: { 'idempotency-key': idempotencyKey },
      body: {
        credential: { type: 'redeem_code', value: newest.redeem_code },
        external_order_id: order,
        store_id: 'upgrade',
      },
    });
  const first = await redeem(`redeem-${key}`, `sale-${key}`);
  const redemptionId: string | undefined = first.body?.data?.id;
  if (first.status !== 201 || !redemptionId) return ledger.wrong(`redeem ${key}`, first, '201 with the redemption');
  figures.redeemed += 1;
  const retry = await redeem(`redeem-${key}`, `sale-${key}`);
  if (retry.status === 201 && retry.body?.data?.id === redemptionId && retry.replayed) figures.replayedSame += 1;
  else {
    if (retry.status === 201 && retry.body?.data?.id !== redemptionId) figures.redeemedTwice += 1;
    ledger.wrong(`retried redeem ${key}`, retry, `201 replaying redemption ${redemptionId}`);
  }
  const again = await redeem(`again-${key}`, `second-sale-${key}`);
  if (again.status === 409) figures.secondRefused += 1;
  else {
    if (again.status === 201) figures.redeemedTwice += 1;
    ledger.wrong(`second redeem ${key}`, again, '409: the voucher is spent');
  }
}

/** Messages whose sending was acknowledged (the API answered 201), by their unique text. */
export class Acknowledged {
  readonly texts = new Set<string>();
}

/** A user's message to a bot, tagged by its text; acknowledged when the API answers 201. */
export async function sendUserMessage(
  api: ApiClient,
  ledger: Ledger,
  user: { jwt: string; chatId: string },
  text: string,
  acknowledged: Acknowledged,
): Promise<void> {
  const answer = await api.call('POST', `/api/v1/bots/client/chats/${user.chatId}/messages`, {
    token: user.jwt,
    body: { text },
  });
  if (answer.status === 201) acknowledged.texts.add(text);
  else ledger.wrong(`message ${text}`, answer, '201');
}

/** How often each text reached a receiver (webhook) or came back from getUpdates. */
export class Arrivals {
  readonly counts = new Map<string, number>();
  /** Webhook requests whose signature did not check out with the bot's secret. */
  unverified = 0;

  add(text: string): void {
    this.counts.set(text, (this.counts.get(text) ?? 0) + 1);
  }

  lost(acknowledged: Acknowledged): string[] {
    return [...acknowledged.texts].filter((text) => !this.counts.has(text));
  }

  doubled(): string[] {
    return [...this.counts].filter(([, count]) => count > 1).map(([text]) => text);
  }
}

/** The webhook receiver's side: verifies the V1 signature as an integrator does, then counts the Update. */
export function receiveWebhook(secret: string, arrivals: Arrivals): (request: ReceivedRequest) => number {
  return (request) => {
    const header = String(request.headers['x-service-signature'] ?? '');
    const expected = `sha256=${createHmac('sha256', secret).update(request.rawBody).digest('hex')}`;
    const verified = header.length === expected.length && timingSafeEqual(Buffer.from(header), Buffer.from(expected));
    if (!verified) {
      arrivals.unverified += 1;
      return 401;
    }
    const update = JSON.parse(request.rawBody.toString('utf8')) as { message?: { text?: string } };
    if (update.message?.text) arrivals.add(update.message.text);
    return 200;
  };
}

/**
 * A bot reading its Updates with getUpdates long polls, confirming each batch with the next offset, as
 * a polling bot does; every Update it gets is counted by its text.
 */
export function pollUpdates(api: ApiClient, ledger: Ledger, botToken: string, arrivals: Arrivals) {
  let offset: number | undefined;
  return paced(0, async () => {
    const answer = await api.call('POST', '/api/v1/bots/getUpdates', {
      token: botToken,
      body: { timeout: 2, ...(offset === undefined ? {} : { offset }) },
    });
    if (answer.status !== 200 || !Array.isArray(answer.body?.data)) {
      return ledger.wrong('getUpdates', answer, '200 with a list of Updates');
    }
    for (const update of answer.body.data as Array<{ update_seq: number; message?: { text?: string } }>) {
      if (update.message?.text) arrivals.add(update.message.text);
      offset = Math.max(offset ?? 0, update.update_seq + 1);
    }
  });
}

/**
 * A POST straight to one replica whose body is held back after its first byte (see Fleet.retire); its
 * answer is recorded in the ledger and handed to `check`.
 */
export function heldBackPost(
  ledger: Ledger,
  replica: Replica,
  path: string,
  options: { token: string; body: unknown; headers?: Record<string, string> },
  check: (answer: Answer) => void,
): InFlightRequest {
  const payload = Buffer.from(JSON.stringify(options.body));
  const req = request(`${replica.url}${path}`, {
    method: 'POST',
    agent: false,
    headers: {
      authorization: `Bearer ${options.token}`,
      'content-type': 'application/json',
      'content-length': String(payload.length),
      ...options.headers,
    },
  });
  const answered = new Promise<Answer>((resolve) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.once('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text for the report
        }
        const replayed = res.headers['idempotent-replayed'] === 'true';
        resolve({ status: res.statusCode ?? 0, body, replica: replica.name, replayed });
      });
    });
    req.once('error', (error) => resolve({ status: 0, body: error.message, replica: replica.name, replayed: false }));
  });
  const sent = new Promise<void>((resolve) => req.write(payload.subarray(0, 1), () => resolve()));
  return {
    sent,
    async finish() {
      req.end(payload.subarray(1));
      const answer = await answered;
      ledger.record(`POST ${path} in flight at SIGTERM`, answer);
      check(answer);
    },
  };
}
