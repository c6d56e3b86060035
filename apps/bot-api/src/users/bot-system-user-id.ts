/** Id of the `users` row a bot speaks as; derived, so the pair stays one-to-one. */
export function systemUserIdFor(botId: string): string {
  return `bot_${botId}`;
}

/** Ids of this shape belong to bots only; no account may sign in under one. */
export function isBotSystemUserId(id: string): boolean {
  return /^bot_[0-9a-f]{24}$/.test(id);
}
