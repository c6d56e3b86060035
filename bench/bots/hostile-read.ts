import { performance } from 'node:perf_hooks';
import { detectEntities } from '../../libs/telegram-shapes/src/formatting/detect';
import { WORST_CASE_PARSERS } from '../../libs/telegram-shapes/src/formatting/worst-case-inputs';
import { inParallel } from '../lib/api';
import { quantile } from '../lib/load';
import { cpuMicros } from '../lib/processes';
import type { BotRun } from './paths';
import { approvedBot, BOT_API, privateChats } from './world';

const MESSAGES = 100;
const TEXT_LENGTH = 4096;
/** Reads of each page, in turn. */
const READS = 40;
const PROBE_EVERY_MS = 25;
const TARGET_RATIO = 2;

const DETECTION_WORST_CASES = WORST_CASE_PARSERS.find((parser) => parser.name === 'entity detection')!.inputs.map(
  ([, input]) => input(TEXT_LENGTH),
);

/**
 * The texts that cost entity detection most: those holding at most one entity (`#aaa…a#`, a URL that
 * ends in dots, runs of `@` or `a.`…), which made detection itself slow, and those dense with entities
 * (a mention every five characters), whose answers are larger in proportion to their entities.
 */
const PAGES = {
  hostile: DETECTION_WORST_CASES.filter((text) => detectEntities(text).length <= 1),
  dense: DETECTION_WORST_CASES.filter((text) => detectEntities(text).length > 1),
  plain: ['plain words of an ordinary message '.repeat(120).slice(0, TEXT_LENGTH)],
};
type Page = keyof typeof PAGES;

interface PageFigures {
  times: number[];
  cpuMicros: number;
  bytes: number;
}

/**
 * Pages of 100 messages of 4,096 characters read through bot-api: the texts that cost detection most
 * against plain ones as long (target ≤ 2×), and those dense with entities beside them, with
 * /health/live probed meanwhile. Its own bot and readers, so that no other path's messages mix in.
 */
export async function benchHostileRead(run: BotRun): Promise<void> {
  const { api, accounts } = run.world;
  const bot = await approvedBot(api, accounts, 'bench-dev-hostile', 'bench_hostile_bot');
  const pages = Object.keys(PAGES) as Page[];
  const readers = pages.map((page) => `bench-${page}-reader`);
  const chats = await privateChats(api, accounts, bot.botId, readers);
  const jwts = await Promise.all(readers.map((reader) => accounts.user(reader)));
  for (const [i, page] of pages.entries()) {
    const texts = PAGES[page];
    await inParallel(
      Array.from({ length: MESSAGES }, (_, n) => texts[n % texts.length]),
      8,
      (text) => api.call('POST', `${BOT_API}/client/chats/${chats[i]}/messages`, jwts[i], { text }),
    );
  }

  const figures = new Map<Page, PageFigures>(pages.map((page) => [page, { times: [], cpuMicros: 0, bytes: 0 }]));
  const liveness: number[] = [];
  let reading = true;
  const probing = (async () => {
    while (reading) {
      const sent = performance.now();
      await api.raw('GET', '/health/live', '');
      liveness.push(performance.now() - sent);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  try {
    for (let round = 0; round < READS; round++) {
      for (const [i, page] of pages.entries()) {
        const entry = figures.get(page)!;
        const cpuBefore = cpuMicros(run.app.pid);
        const started = performance.now();
        const res = await fetch(
          `http://127.0.0.1:${run.app.port}${BOT_API}/client/chats/${chats[i]}/messages?limit=100`,
          {
            headers: { authorization: `Bearer ${jwts[i]}` },
          },
        );
        const body = await res.text();
        entry.times.push(performance.now() - started);
        entry.cpuMicros += cpuMicros(run.app.pid) - cpuBefore;
        entry.bytes = Buffer.byteLength(body);
        if (res.status !== 200 || JSON.parse(body).data.items.length !== MESSAGES) {
          throw new Error(`page read: ${res.status}`);
        }
      }
    }
  } finally {
    reading = false;
    await probing;
  }
  const plain = figures.get('plain')!;
  const describe = (entry: PageFigures) =>
    `${(entry.bytes / 1024).toFixed(0)} KB, bot-api CPU ${(entry.cpuMicros / READS / 1000).toFixed(1)} ms/read`;
  const row = (page: Page, path: string, target: (ratio: number) => string) => {
    const entry = figures.get(page)!;
    const ratio = quantile(entry.times, 0.5) / quantile(plain.times, 0.5);
    run.report.add({
      path,
      p50: quantile(entry.times, 0.5),
      p99: quantile(entry.times, 0.99),
      cpuMicros: entry.cpuMicros / READS,
      ratio,
      note:
        `ratio = p50 / plain page p50 (${quantile(plain.times, 0.5).toFixed(1)} ms; ${describe(plain)}); ` +
        `this page ${describe(entry)}; ${target(ratio)}`,
    });
  };
  const maxLiveness = `/health/live max ${Math.max(...liveness).toFixed(1)} ms during all reads`;
  row(
    'hostile',
    `page of ${MESSAGES} hostile 4 KB messages vs plain`,
    (ratio) => `target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? 'met' : 'MISSED'}; ${maxLiveness}`,
  );
  row(
    'dense',
    `page of ${MESSAGES} entity-dense 4 KB messages vs plain`,
    () => 'no target: the answer grows with its entities',
  );
}
