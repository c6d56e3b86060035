/**
 * Waiting in tests. A test waits for what it can observe (`waitUntil`, `eventually`), never for a guessed
 * number of milliseconds; the only fixed wait is `quietPeriod`, for showing that nothing happens.
 */

const RETRY_EVERY_MS = 20;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it holds, failing after `timeoutMs`: for conditions another process brings about. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached within ${timeoutMs} ms`);
    await pause(RETRY_EVERY_MS);
  }
}

/**
 * Runs `assertion` (a block of `expect` calls) until it passes and answers what it returned; after
 * `timeoutMs` its last failure is thrown, so the report shows what was seen last. For outcomes that
 * arrive on their own, such as a window or a lifetime that ends. `everyMs` spaces the tries of an
 * assertion that calls a rate-limited route.
 */
export async function eventually<T>(
  assertion: () => T | Promise<T>,
  timeoutMs = 5000,
  everyMs = RETRY_EVERY_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > deadline) {
        if (error instanceof Error) error.message = `still failing after ${timeoutMs} ms:\n${error.message}`;
        throw error;
      }
    }
    await pause(everyMs);
  }
}

/**
 * The one fixed wait a test may keep: a stretch of time in which something must NOT happen (no second
 * POST, no run after the scheduler is gone). Nothing observable marks its end, so it is a length;
 * `reason` says what the quiet shows and keeps every such wait named and countable.
 */
export async function quietPeriod(ms: number, reason: string): Promise<void> {
  if (!reason.trim()) throw new Error('a quiet period needs a reason');
  await pause(ms);
}
