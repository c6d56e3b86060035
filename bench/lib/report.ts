import type { LoadResult } from './load';

export interface Row {
  path: string;
  perSecond?: number;
  p50?: number;
  p99?: number;
  cpuMicros?: number | null;
  baselinePerSecond?: number;
  /** req/s of the fair baseline (the hand-written path doing the per-call work the specification requires). */
  fairBaselinePerSecond?: number;
  /** Overrides the computed ratio (e.g. one template / many templates). */
  ratio?: number;
  note?: string;
}

export function rowFromLoad(path: string, result: LoadResult, baseline?: LoadResult, note = ''): Row {
  return {
    path,
    perSecond: result.perSecond,
    p50: result.p50,
    p99: result.p99,
    cpuMicros: result.cpuMicrosPerRequest,
    baselinePerSecond: baseline?.perSecond,
    note,
  };
}

function num(value: number | null | undefined, digits = 0): string {
  return value === undefined || value === null || Number.isNaN(value) ? '—' : value.toFixed(digits);
}

function ratioOf(row: Row): string {
  if (row.ratio !== undefined) return `${row.ratio.toFixed(2)}×`;
  if (!row.perSecond || !row.baselinePerSecond) return '—';
  return `${(row.perSecond / row.baselinePerSecond).toFixed(2)}×`;
}

export function formatTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => (cell ?? '').padEnd(widths[i])).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

function fairRatioOf(row: Row): string {
  if (!row.perSecond || !row.fairBaselinePerSecond) return '—';
  return `${(row.perSecond / row.fairBaselinePerSecond).toFixed(2)}×`;
}

/**
 * The one results table: path, req/s, p50, p99, server CPU µs per request, baseline req/s, ratio, and
 * where a path has one the ratio to its fair baseline.
 */
export function resultsTable(rows: Row[]): string {
  return formatTable(
    ['path', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'baseline req/s', 'ratio', 'fair ratio', 'note'],
    rows.map((row) => [
      row.path,
      num(row.perSecond),
      num(row.p50, 1),
      num(row.p99, 1),
      num(row.cpuMicros),
      num(row.baselinePerSecond),
      ratioOf(row),
      fairRatioOf(row),
      row.note ?? '',
    ]),
  );
}

/** Collects what every phase measured and prints it together at the end. */
export class Report {
  readonly rows: Row[] = [];
  readonly sections: Array<{ title: string; body: string }> = [];

  add(row: Row): void {
    this.rows.push(row);
    const figures = [
      row.perSecond === undefined ? '' : `${num(row.perSecond)} req/s`,
      row.p99 === undefined ? '' : `p99 ${num(row.p99, 1)} ms`,
    ].filter(Boolean);
    console.log(`  ${row.path}: ${[...figures, row.note ?? ''].join(' ')}`);
  }

  section(title: string, body: string): void {
    this.sections.push({ title, body });
  }

  print(): string {
    const parts = ['', resultsTable(this.rows)];
    for (const { title, body } of this.sections) parts.push('', `## ${title}`, body);
    const text = parts.join('\n');
    console.log(text);
    return text;
  }
}
