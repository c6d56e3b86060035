/**
 * The multipart calls one process holds in memory: at most `total` at once, and at most `perBot` of one
 * bot, so a bot that keeps its uploads slow cannot take every slot from the others.
 */
export class MultipartSlots {
  private held = 0;
  private readonly heldByBot = new Map<string, number>();

  constructor(
    private readonly total: number,
    private readonly perBot: number,
  ) {}

  /** Slots held now, by every bot. */
  get inUse(): number {
    return this.held;
  }

  /** A release function, or null when no slot is free for this bot. Releasing twice frees one slot only. */
  tryAcquire(botId: string): (() => void) | null {
    const ofBot = this.heldByBot.get(botId) ?? 0;
    if (this.held >= this.total || ofBot >= this.perBot) return null;
    this.held += 1;
    this.heldByBot.set(botId, ofBot + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held -= 1;
      const left = (this.heldByBot.get(botId) ?? 1) - 1;
      if (left > 0) this.heldByBot.set(botId, left);
      else this.heldByBot.delete(botId);
    };
  }
}
