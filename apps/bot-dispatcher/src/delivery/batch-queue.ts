export interface BatchQueueOptions {
  /** Most items handed to one run. */
  maxBatch: number;
  /** How long the first item waits for others when no run is in progress (0: until the current tick ends). */
  windowMs: number;
}

interface Waiting<I, O> {
  item: I;
  resolve(output: O): void;
  reject(error: Error): void;
}

/**
 * Group commit: items that arrive while a run is in progress go together into the next run, so under
 * load one statement serves many jobs and at low load an item waits at most `windowMs`. One run at a
 * time. `run` answers with one output per item, in order; when it throws, every item of the run rejects.
 */
export class BatchQueue<I, O> {
  private waiting: Array<Waiting<I, O>> = [];
  private timer?: NodeJS.Timeout | NodeJS.Immediate;
  private running?: Promise<void>;

  constructor(
    private readonly run: (items: I[]) => Promise<O[]>,
    private readonly options: BatchQueueOptions,
  ) {}

  push(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /** Runs what waits without the window and returns once nothing waits or runs. */
  async drain(): Promise<void> {
    while (this.waiting.length > 0 || this.running) {
      this.runNow();
      await this.running;
    }
  }

  private schedule(): void {
    if (this.running) return;
    if (this.waiting.length >= this.options.maxBatch) this.runNow();
    else if (this.timer) return;
    else if (this.options.windowMs === 0) this.timer = setImmediate(() => this.runNow());
    else this.timer = setTimeout(() => this.runNow(), this.options.windowMs);
  }

  private runNow(): void {
    this.cancelTimer();
    if (this.running) return;
    const batch = this.waiting.splice(0, this.options.maxBatch);
    if (batch.length === 0) return;
    this.running = this.settle(batch).finally(() => {
      this.running = undefined;
      // Whatever arrived meanwhile has waited long enough: run it at once.
      if (this.waiting.length > 0) this.runNow();
    });
  }

  private async settle(batch: Array<Waiting<I, O>>): Promise<void> {
    try {
      const outputs = await this.run(batch.map((entry) => entry.item));
      batch.forEach((entry, index) => entry.resolve(outputs[index]));
    } catch (error) {
      for (const entry of batch) entry.reject(error as Error);
    }
  }

  private cancelTimer(): void {
    if (!this.timer) return;
    if (this.options.windowMs === 0) clearImmediate(this.timer as NodeJS.Immediate);
    else clearTimeout(this.timer as NodeJS.Timeout);
    this.timer = undefined;
  }
}
