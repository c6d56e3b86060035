/** A time as the whole seconds since the Unix epoch: the `date` fields of messages and Updates (Telegram's). */
export function unixSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
