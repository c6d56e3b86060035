/**
 * Wake-up latency of a waiting getUpdates after a user message.
 *
 *   npx ts-node --transpile-only -r tsconfig-paths/register bench/long-poll-latency.ts [iterations]
 *
 * Needs the local PostgreSQL and Redis. Boots bot-api on a throw-away database and a random port,
 * then compares, over real HTTP in this one process:
 *   baseline  an immediate getUpdates round trip (timeout 0, nothing pending)
 *   post      the user's POST of a message (commit included)
 *   wake      from the user's POST returning to the waiting getUpdates returning
 *   end2end   from the user's POST being sent to the waiting getUpdates returning
 * Figures are printed as ratios to the baseline median, so they compare across machines; the
 * baseline itself is printed once for orientation.
 */
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { BotTestContext, createApprovedBot, startBotApp } from '../apps/bot-api/test/app-context';

interface Sample {
  name: string;
  values: number[];
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(sample: Sample, baseline: number): string {
  const sorted = [...sample.values].sort((a, b) => a - b);
  const ratio = (value: number) => `${(value / baseline).toFixed(2)}×`;
  return [
    sample.name.padEnd(9),
    `p50 ${ratio(quantile(sorted, 0.5)).padStart(7)}`,
    `p95 ${ratio(quantile(sorted, 0.95)).padStart(7)}`,
    `p99 ${ratio(quantile(sorted, 0.99)).padStart(7)}`,
    `max ${ratio(sorted[sorted.length - 1]).padStart(7)}`,
  ].join('  ');
}

async function main(): Promise<void> {
  const iterations = Number(process.argv[2] ?? 200);
  const ctx: BotTestContext = await startBotApp({ LOG_LEVEL: 'silent' });
  try {
    const bot = await createApprovedBot(ctx, 'bench-dev', { username: 'bench_bot' });
    // The bench sends far beyond the default send quota; the quota is not what is measured.
    await ctx.app
      .get(DataSource)
      .query(
        `UPDATE bots SET rate_limits = '{"send_per_sec": 1000000, "send_per_min": 1000000, "send_per_day": 1000000}' WHERE id = $1`,
        [bot.botId],
      );
    await ctx.app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(ctx.app.getHttpServer().address() as AddressInfo).port}/api/v1/bots`;
    const user = await ctx.jwt('bench-user', 'Bench User');
    const call = async (path: string, token: string, body: object) => {
      const res = await fetch(`${base}/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as { data: any };
      if (!res.ok) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
      return json.data;
    };
    const chat = await call('client/chats/private', user, { bot_id: bot.botId });
    let offset = 0;
    const confirm = (updates: Array<{ update_seq: number }>) => {
      if (updates.length > 0) offset = updates[updates.length - 1].update_seq + 1;
    };

    // Warm-up: connections, prepared plans, JIT.
    for (let i = 0; i < 30; i++) {
      await call(`client/chats/${chat.id}/messages`, user, { text: `warm ${i}` });
      confirm(await call('getUpdates', bot.token, { offset, timeout: 0 }));
    }
    confirm(await call('getUpdates', bot.token, { offset, timeout: 0 }));

    const baseline: Sample = { name: 'baseline', values: [] };
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      await call('getUpdates', bot.token, { offset, timeout: 0 });
      baseline.values.push(performance.now() - started);
    }

    const post: Sample = { name: 'post', values: [] };
    const wake: Sample = { name: 'wake', values: [] };
    const endToEnd: Sample = { name: 'end2end', values: [] };
    for (let i = 0; i < iterations; i++) {
      let polledAt = 0;
      const poll = call('getUpdates', bot.token, { offset, timeout: 10 }).then((updates) => {
        polledAt = performance.now();
        return updates;
      });
      await new Promise((resolve) => setTimeout(resolve, 15));
      const sentAt = performance.now();
      await call(`client/chats/${chat.id}/messages`, user, { text: `ping ${i}` });
      const postedAt = performance.now();
      const updates = await poll;
      if (updates.length !== 1) throw new Error(`expected one Update, got ${updates.length}`);
      confirm(updates);
      post.values.push(postedAt - sentAt);
      wake.values.push(Math.max(0, polledAt - postedAt));
      endToEnd.values.push(polledAt - sentAt);
    }

    const reference = quantile(
      [...baseline.values].sort((a, b) => a - b),
      0.5,
    );
    console.log(`long-poll wake-up latency, ${iterations} iterations (ratios to the baseline median)`);
    console.log(`baseline median: ${reference.toFixed(2)} ms — an immediate getUpdates round trip over HTTP`);
    for (const sample of [baseline, post, wake, endToEnd]) console.log(summary(sample, reference));
  } finally {
    await ctx.close();
  }
}

main().catch((error: Error) => {
  console.error(error);
  process.exit(1);
});
