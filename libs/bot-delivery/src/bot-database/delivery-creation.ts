/**
 * The one way a delivery is created: one per Update of a bot that is in webhook mode when the statement
 * runs, carrying its own copy of the Update (so a dead letter outlives the getUpdates retention), at
 * most one per update_id. `updates` is a relation (a CTE or a parenthesised query) with the columns
 * bot_id, update_seq, update_id, type and payload. Reading the mode in the statement that writes the
 * delivery means a bot switching modes concurrently either gets the row or has its Update found by
 * setWebhook's copy of the backlog (or, failing both, by the sweeper's adoption of orphans).
 */
export function insertDeliveriesSql(updates: string): string {
  return `INSERT INTO webhook_deliveries (bot_id, update_seq, update_id, update_type, payload)
     SELECT u.bot_id, u.update_seq, u.update_id, u.type, u.payload
       FROM ${updates} u JOIN bot_delivery_settings s ON s.bot_id = u.bot_id AND s.delivery_mode = 'webhook'
      ORDER BY u.update_seq
     ON CONFLICT (update_id) DO NOTHING
     RETURNING id, update_id, series, bot_id`;
}
