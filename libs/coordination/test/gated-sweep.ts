import { PeriodicSweep, SweepLabels } from '../src/periodic-sweep';

/**
 * A sweep whose passes wait until the test opens the gate, so a test can act while one is in flight.
 * A module provides it with a factory (`useFactory: () => new GatedSweep(…)`): its arguments are not injected.
 */
export class GatedSweep extends PeriodicSweep {
  /** How many passes have started. */
  passes = 0;
  /** What the next passes answer, or throw. */
  outcome: number | Error = 2;
  private readonly waiting: Array<() => void> = [];

  constructor(everyMs = 60_000, labels: SweepLabels = { name: 'gated sweep', removed: 'gated row(s)' }) {
    super(everyMs, labels);
  }

  /** Lets every pass in flight finish. */
  open(): void {
    for (const release of this.waiting.splice(0)) release();
  }

  protected async pass(): Promise<number> {
    this.passes += 1;
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.outcome instanceof Error) throw this.outcome;
    return this.outcome;
  }
}
