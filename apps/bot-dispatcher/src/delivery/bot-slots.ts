/**
 * In-flight POSTs per bot on this replica. A job that finds its bot at its limit is put back on the
 * queue for a moment instead of waiting in a worker slot, so one slow receiver cannot take every slot
 * of the replica, and its timeout never counts time spent waiting for a connection.
 *
 * Up to its fair share of the replica a bot always gets a slot (within its max_connections). Beyond
 * it, the share is work-conserving: a bot whose receiver answers promptly may borrow idle slots as long
 * as `reserve` of them stay free for every other bot, so a lone bot draining a backlog runs at full
 * speed. A bot whose receiver is slow or never answers may not borrow (the caller says which, see
 * `mayBorrow`): more connections would only be more sockets hanging until the timeout, and all of them
 * timing out and reconnecting together every timeout is a burst of work that every other bot's
 * deliveries on the replica would wait behind.
 */
export class BotSlots {
  private readonly active = new Map<string, number>();
  private total = 0;

  /**
   * `fairShare`: the slots a bot may always hold on this replica (at least 1); `concurrency` and
   * `reserve`: how many slots the replica has and how many borrowing must leave free.
   */
  constructor(
    private readonly fairShare = Number.POSITIVE_INFINITY,
    private readonly concurrency = Number.POSITIVE_INFINITY,
    private readonly reserve = 0,
  ) {}

  tryAcquire(botId: string, maxConnections: number, mayBorrow = true): boolean {
    if (!this.canAcquire(botId, maxConnections, mayBorrow)) return false;
    this.active.set(botId, (this.active.get(botId) ?? 0) + 1);
    this.total++;
    return true;
  }

  /** Whether tryAcquire would grant a slot now. */
  canAcquire(botId: string, maxConnections: number, mayBorrow = true): boolean {
    const current = this.active.get(botId) ?? 0;
    if (current >= maxConnections) return false;
    if (current < this.fairShare) return true;
    return mayBorrow && this.total + 1 <= this.concurrency - this.reserve;
  }

  release(botId: string): void {
    const current = this.active.get(botId) ?? 0;
    if (current === 0) return;
    this.total--;
    if (current === 1) this.active.delete(botId);
    else this.active.set(botId, current - 1);
  }

  inFlight(botId: string): number {
    return this.active.get(botId) ?? 0;
  }

  /** Bots with at least one POST open, and how many. */
  entries(): IterableIterator<[string, number]> {
    return this.active.entries();
  }
}

/** A bot's share of `concurrency` worker slots: `percent` of them, never less than one. */
export function fairShareOf(concurrency: number, percent: number): number {
  return Math.max(1, Math.floor((concurrency * percent) / 100));
}

/** The slots that borrowing beyond a fair share must leave free: a fifth of the replica, at least two shares. */
export function reservedSlotsOf(concurrency: number, fairShare: number): number {
  return Math.min(concurrency - 1, Math.max(2 * fairShare, Math.ceil(concurrency / 5)));
}

/** The slots of a replica: fair share per bot, and borrowing beyond it that leaves a reserve free. */
export function replicaSlots(concurrency: number, sharePercent: number): BotSlots {
  const share = fairShareOf(concurrency, sharePercent);
  return new BotSlots(share, concurrency, reservedSlotsOf(concurrency, share));
}
