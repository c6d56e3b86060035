import { RenderedBody } from '@app/envelope';
import type { EntityManager } from 'typeorm';
import type { Claim, IdempotencyStore } from './idempotency.store';

/**
 * Handed to the use case of an idempotent route. The use case calls `complete` inside its own
 * transaction, so that the business rows and the stored response commit together or not at all.
 */
export class IdempotentCall {
  private done = false;

  constructor(
    private readonly store: IdempotencyStore,
    readonly claim: Claim,
    private readonly status: number,
    private readonly render: (data: unknown) => string,
  ) {}

  get key(): string {
    return this.claim.key;
  }

  get completed(): boolean {
    return this.done;
  }

  async complete(manager: EntityManager, data: unknown): Promise<RenderedBody> {
    const body = this.render(data);
    await this.store.complete(manager, this.claim, this.status, body);
    this.done = true;
    return new RenderedBody(body);
  }
}
