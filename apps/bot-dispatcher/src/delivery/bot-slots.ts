/**
 * In-flight POSTs per bot on this replica. A job that finds its bot at max_connections is put back
 * on the queue for a moment instead of waiting in a worker slot, so one slow receiver cannot take
 * every slot of the replica, and its timeout never counts time spent waiting for a connection.
 */
export class BotSlots {
  private readonly active = new Map<string, number>();

  tryAcquire(botId: string, limit: number): boolean {
    const current = this.active.get(botId) ?? 0;
    if (current >= limit) return false;
    this.active.set(botId, current + 1);
    return true;
  }

  release(botId: string): void {
    const current = this.active.get(botId) ?? 0;
    if (current <= 1) this.active.delete(botId);
    else this.active.set(botId, current - 1);
  }

  inFlight(botId: string): number {
    return this.active.get(botId) ?? 0;
  }
}
