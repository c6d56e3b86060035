import { performance } from 'node:perf_hooks';
import { WORST_CASE_PARSERS, WorstCaseRun } from '../../libs/telegram-shapes/src/formatting/worst-case-inputs';
import { quantile } from '../lib/load';
import type { Report } from '../lib/report';

/** The longest text a message holds. */
const SIZE = 4096;
const WARM_UP_CALLS = 10;
const CALLS = 100;
/** Per call, for every parser and every one of its worst-case texts. */
const TARGET_MS = 5;

interface Timed {
  text: string;
  p50: number;
  p99: number;
  cpuMicros: number;
}

/** Wall time of each call and the process's CPU time per call. */
function timeCalls(run: WorstCaseRun, input: string): Omit<Timed, 'text'> {
  for (let i = 0; i < WARM_UP_CALLS; i++) run(input);
  const times: number[] = [];
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    run(input);
    times.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { p50: quantile(times, 0.5), p99: quantile(times, 0.99), cpuMicros: (cpu.user + cpu.system) / CALLS };
}

/**
 * Entity detection and the three parse_mode parsers, in the bench's own process, on each of their
 * worst-case 4,096-character texts (libs/telegram-shapes/src/formatting/worst-case-inputs.ts): one
 * row per parser with its slowest text (target < 5 ms per call on every text).
 */
export function benchParsers(report: Report): void {
  for (const { name, run, inputs } of WORST_CASE_PARSERS) {
    const timed: Timed[] = inputs.map(([text, input]) => ({ text, ...timeCalls(run, input(SIZE)) }));
    const slowest = timed.reduce((worst, next) => (next.p50 > worst.p50 ? next : worst));
    const over = timed.filter((entry) => entry.p50 >= TARGET_MS).map((entry) => entry.text);
    report.add({
      path: `${name}: slowest of ${timed.length} worst-case 4 KB texts`,
      p50: slowest.p50,
      p99: slowest.p99,
      cpuMicros: slowest.cpuMicros,
      note:
        `per call; slowest text: ${slowest.text}; target p50 < ${TARGET_MS} ms on every text: ` +
        (over.length === 0 ? 'met' : `MISSED (${over.join(', ')})`),
    });
  }
}
