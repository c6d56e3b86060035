import { RenderedBody } from '@app/envelope';
import type { SqlTarget } from '@app/platform';
import type { Claim, ClaimOutcome, ClaimValues, IdempotencyStore, Replay } from './idempotency.store';
import type { IdempotencyTarget } from './idempotency-target';
import { HANDLER_STARTED, HandlerStartMark } from './handler-execution';

/** Thrown out of the use case's transaction when the key already holds a completed answer. */
export class IdempotentReplay extends Error {
  constructor(readonly replay: Replay) {
    super('idempotent replay');
    this.name = 'IdempotentReplay';
  }
}

/**
 * Handed to the use case of an idempotent route. The use case calls `begin` as the first statement of
 * its transaction and `complete` as the last, so that the business rows and the stored response commit
 * together or not at all. When the route claims before the handler runs, `begin` has nothing left to do.
 */
export class IdempotentCall implements HandlerStartMark {
  private done = false;
  private started = false;
  private refused = false;
  private held: Claim | undefined;
  private pending: ClaimValues | undefined;
  /** True when the key was claimed in a transaction of its own before the handler ran. */
  readonly claimedUpFront: boolean;

  constructor(
    private readonly store: IdempotencyStore,
    readonly target: IdempotencyTarget,
    claim: Claim | undefined,
    private readonly status: number,
    private readonly render: (data: unknown) => string,
  ) {
    this.held = claim;
    this.claimedUpFront = claim !== undefined;
  }

  get key(): string {
    return this.target.key;
  }

  get completed(): boolean {
    return this.done;
  }

  /** Whether the route's handler was called with this call (see MarksHandlerStart): every pipe had passed. */
  get handlerStarted(): boolean {
    return this.started;
  }

  [HANDLER_STARTED](): void {
    this.started = true;
  }

  /** The claim this request holds, if it got one. */
  get claim(): Claim | undefined {
    return this.held;
  }

  /** Whether the key turned this request away (in use, reused, or replayed); nothing is recorded for it then. */
  get turnedAway(): boolean {
    return this.refused;
  }

  /** Claims the key inside the use case's transaction; throws 409 or a replay that ends the transaction. */
  async begin(manager: SqlTarget): Promise<void> {
    if (this.held) return;
    await this.settle(() => this.store.claimInTransaction(manager, this.target));
  }

  /**
   * For a use case whose first statement carries the claim (`withClaim`): the values of those CTEs.
   * Hand `held` and `claimed` of the statement's answer to `claimed` before anything else.
   */
  claimParameters(): ClaimValues {
    if (this.claimedUpFront) throw new Error('the key of this route is claimed before its handler runs');
    this.pending = this.store.claimParameters(this.target);
    return this.pending;
  }

  /** Settles a claim made by the use case's own first statement, like `begin` does its own. */
  async claimed(manager: SqlTarget, held: boolean, claimed: boolean): Promise<void> {
    const parameters = this.pending;
    if (!parameters) throw new Error('claimed() without claimParameters()');
    this.pending = undefined;
    await this.settle(() => this.store.claimOutcome(manager, this.target, parameters, held, claimed));
  }

  private async settle(claim: () => Promise<ClaimOutcome>): Promise<void> {
    let outcome: ClaimOutcome;
    try {
      outcome = await claim();
    } catch (error) {
      this.refused = true;
      throw error;
    }
    if (outcome.kind === 'replay') {
      this.refused = true;
      throw new IdempotentReplay(outcome);
    }
    this.held = outcome.claim;
  }

  async complete(manager: SqlTarget, data: unknown): Promise<RenderedBody> {
    if (!this.held) throw new Error('idempotent use case completed a key it never began');
    const body = this.render(data);
    await this.store.complete(manager, this.held, this.status, body);
    this.done = true;
    return new RenderedBody(body);
  }
}
