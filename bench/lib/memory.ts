import { readFileSync } from 'node:fs';

/** Where a process's resident memory sits, in MB: what the RSS figure alone cannot say. */
export interface MemoryBreakdown {
  rss: number;
  /** Anonymous resident memory (heap, stacks, malloc) vs. file-backed (the node binary, libraries). */
  rssAnon: number;
  rssFile: number;
  heapTotal: number;
  heapUsed: number;
  /** V8's young generation (semi-spaces) as committed now. */
  newSpace: number;
  oldSpace: number;
  /** Memory outside the V8 heap that V8 knows of: Buffers and ArrayBuffers (sockets, pg, ioredis). */
  external: number;
  /** Full (mark-compact) collections since start: none means old-space garbage was never collected. */
  majorGcs: number;
  /** Seconds spent in garbage collection since start, every kind (the CPU price of a tighter heap). */
  gcSeconds: number;
}

const MB = 1024 * 1024;

function statusKb(pid: number, field: string): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

function metric(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || l.startsWith(`${name}${labels}{`));
  return line ? Number(line.trim().split(/\s+/).pop()) / MB : NaN;
}

function count(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line ? Number(line.trim().split(/\s+/).pop()) : 0;
}

/** Reads the app's default Prometheus metrics (prom-client) and its /proc status. */
export async function memoryBreakdown(pid: number, port: number): Promise<MemoryBreakdown> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return {
    rss: statusKb(pid, 'VmRSS'),
    rssAnon: statusKb(pid, 'RssAnon'),
    rssFile: statusKb(pid, 'RssFile'),
    heapTotal: metric(text, 'nodejs_heap_size_total_bytes'),
    heapUsed: metric(text, 'nodejs_heap_size_used_bytes'),
    newSpace: metric(text, 'nodejs_heap_space_size_total_bytes', '{space="new"}'),
    oldSpace: metric(text, 'nodejs_heap_space_size_total_bytes', '{space="old"}'),
    external: metric(text, 'nodejs_external_memory_bytes'),
    majorGcs: count(text, 'nodejs_gc_duration_seconds_count', '{kind="major"}'),
    gcSeconds: ['major', 'minor', 'incremental', 'weakcb']
      .map((kind) => count(text, 'nodejs_gc_duration_seconds_sum', `{kind="${kind}"}`))
      .reduce((a, b) => a + b, 0),
  };
}

export const MEMORY_COLUMNS = [
  'RSS',
  'anon',
  'file',
  'heap total',
  'heap used',
  'new space',
  'old space',
  'external',
  'full GCs',
  'GC s',
];

export function memoryRow(m: MemoryBreakdown): string[] {
  const sizes = [m.rss, m.rssAnon, m.rssFile, m.heapTotal, m.heapUsed, m.newSpace, m.oldSpace, m.external];
  return [...sizes.map((v) => (Number.isFinite(v) ? v.toFixed(0) : '—')), String(m.majorGcs), m.gcSeconds.toFixed(2)];
}
