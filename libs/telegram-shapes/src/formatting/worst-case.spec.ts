import { WORST_CASE_PARSERS, WorstCaseInput, WorstCaseRun } from './worst-case-inputs';

/*
 * Every parser of a user's text (the three parse_mode parsers and entity detection) on the inputs
 * that cost it most (worst-case-inputs.ts). A parser whose time grows faster than its input lets one
 * message hold a process for seconds, so each input is timed at 4 KB and at 64 KB: the 4 KB text must
 * take less than PER_4_KB_MS (the median sample), and the 64 KB one at most GROWTH times as long
 * (16 times, for linear time; 256 times for quadratic, 64 times for n^1.5), which fails on a slow box
 * and on a fast one alike. The sizes lie far apart because a garbage collection or a JIT tier that
 * lands in one size's samples can double its time: over a 16-fold span that noise stays far from
 * the bound, over a twofold span it looked like quadratic growth. Time is the process's CPU time, which other processes on a busy machine do not lengthen as
 * they do the clock; the growth compares the fastest samples, which what remains of that noise
 * disturbed least, and a measurement is taken up to ATTEMPTS times, keeping the best: noise rarely
 * strikes every time, while a parser that grows faster than its input is slow every time.
 */
const PER_4_KB_MS = 20;
const GROWTH = 48;
const SIZES = [4096, 65536] as const;
/** Each sample calls the parser for at least this much CPU time, so that jitter averages out. */
const SAMPLE_MS = 10;
const SAMPLES = 7;
/**
 * Up to this many measurements of an input whose growth looked too steep. In a Jest worker that has run
 * many end-to-end files before this one, a measurement of the 64 KB text has come out four times its
 * usual time three times in a row (its 4 KB text only 1.5 times), so three attempts were too few to let
 * that noise pass; a parser that grows faster than its input fails all of them alike.
 */
const ATTEMPTS = 6;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

interface Timing {
  median: number;
  fastest: number;
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** CPU milliseconds per call: calls repeated for at least SAMPLE_MS of CPU time. */
function sample(run: WorstCaseRun, input: string): number {
  const started = cpuMs();
  let calls = 0;
  let spent = 0;
  do {
    run(input);
    calls += 1;
    spent = cpuMs() - started;
  } while (spent < SAMPLE_MS);
  return spent / calls;
}

/** The time per call at each size, the sizes sampled in turn so that both see the same load. */
function timeBySize(run: WorstCaseRun, input: WorstCaseInput): [Timing, Timing] {
  const inputs = SIZES.map((size) => input(size));
  inputs.forEach((text, i) => expect(text).toHaveLength(SIZES[i]));
  expect(run(inputs[1])).toBe(run(inputs[0]));
  // Warmed up as long as a sample lasts, so the optimising compiler is done before the first sample.
  inputs.forEach((text) => sample(run, text));
  const samples: [number[], number[]] = [[], []];
  for (let i = 0; i < SAMPLES; i++) inputs.forEach((text, s) => samples[s].push(sample(run, text)));
  const timing = (values: number[]) => ({ median: median(values), fastest: Math.min(...values) });
  return [timing(samples[0]), timing(samples[1])];
}

function expectLinear(run: WorstCaseRun, input: WorstCaseInput): void {
  const growth = ([small, large]: [Timing, Timing]) => large.fastest / small.fastest;
  let best = timeBySize(run, input);
  // A 4 KB text over the bound fails as it is: measuring it again would only take longer.
  for (let attempt = 1; attempt < ATTEMPTS && growth(best) > GROWTH && best[0].median < PER_4_KB_MS; attempt++) {
    const again = timeBySize(run, input);
    if (growth(again) < growth(best)) best = again;
  }
  const [small, large] = best;
  const figures =
    `median ${small.median.toFixed(3)} ms at 4 KB, ${large.median.toFixed(3)} ms at 64 KB; ` +
    `fastest ${small.fastest.toFixed(3)} ms, ${large.fastest.toFixed(3)} ms`;
  expect({ figures, within: small.median < PER_4_KB_MS }).toEqual({ figures, within: true });
  expect({ figures, linear: large.fastest <= GROWTH * small.fastest }).toEqual({ figures, linear: true });
}

describe('worst-case inputs: time per kilobyte and linear growth', () => {
  describe.each(WORST_CASE_PARSERS)('$name', ({ run, inputs }) => {
    it.each(inputs)('%s', (_name, input) => expectLinear(run, input));
  });
});
