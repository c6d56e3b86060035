/**
 * squawk's findings excused in migrations whose SQL is not ours to annotate: migrations shipped before
 * the lint (they have run on every database, and a shipped migration is never edited) and BullMQ's
 * schema, written by its own migrator from SQL in its package. Each becomes a `-- squawk-ignore-file`
 * line, with its reason, at the top of that migration's recorded SQL. A new migration has none here:
 * its exceptions are `-- squawk-ignore <rule> -- <reason>` lines beside the statements.
 */
export interface LintException {
  migration: string;
  rule: string;
  reason: string;
}

const SHIPPED = 'shipped before the lint and run since';

export const LINT_EXCEPTIONS: LintException[] = [
  {
    migration: 'CreateBots1763683400000',
    rule: 'require-concurrent-index-creation',
    reason: `users_username_lower; ${SHIPPED}`,
  },
  {
    migration: 'WebhookDeliveryControls1795400000000',
    rule: 'constraint-missing-not-valid',
    reason: `a check on a column added by the same statement; ${SHIPPED}`,
  },
  {
    migration: 'CreateDeliveryRedrives1795500000000',
    rule: 'require-concurrent-index-creation',
    reason: `webhook_deliveries_dead_letters; ${SHIPPED}`,
  },
  {
    migration: 'CreateFileUploads1795600000000',
    rule: 'require-concurrent-index-creation',
    reason: `files_storage_key; ${SHIPPED}`,
  },
  {
    migration: 'SelfHealingDeadLetters1795620000000',
    rule: 'require-concurrent-index-creation',
    reason: `three indexes; ${SHIPPED}`,
  },
  {
    migration: 'SelfHealingDeadLetters1795620000000',
    rule: 'constraint-missing-not-valid',
    reason: `a check on a column added by the same statement; ${SHIPPED}`,
  },
  {
    migration: 'VirtualMemberAuditRetention1795900000000',
    rule: 'require-concurrent-index-creation',
    reason: `virtual_member_audit_log_age; ${SHIPPED}`,
  },
  {
    migration: 'FileStorageBounds1795900000001',
    rule: 'require-concurrent-index-creation',
    reason: `files_age, file_uploads_bot_pending; ${SHIPPED}`,
  },
  {
    migration: 'CreateBotDeliverySettings1796100000000',
    rule: 'require-concurrent-index-deletion',
    reason: `bots_webhook_recovered; ${SHIPPED}`,
  },
  {
    migration: 'CreateBotDeliverySettings1796100000000',
    rule: 'ban-drop-column',
    reason: `the delivery columns moved to bot_delivery_settings; ${SHIPPED}`,
  },
  {
    migration: 'MessageDetectionPendingIndex1796200000001',
    rule: 'prefer-robust-stmts',
    reason: 'the DROP INDEX CONCURRENTLY IF EXISTS before the build makes a rerun safe',
  },
  {
    migration: 'CreateAllocations1763683900000',
    rule: 'adding-foreign-key-constraint',
    reason: `vouchers.send_id; ${SHIPPED}`,
  },
  {
    migration: 'CreateAllocations1763683900000',
    rule: 'require-concurrent-index-creation',
    reason: `vouchers_send_id; ${SHIPPED}`,
  },
  {
    migration: 'CreateQueueSchema1795800000000',
    rule: 'adding-not-nullable-field',
    reason: "BullMQ's own ledger table (a row per schema version), in SQL of its package",
  },
];

/** The `-- squawk-ignore-file` lines of a migration's recorded SQL. */
export function ignoreLines(migration: string, exceptions = LINT_EXCEPTIONS): string[] {
  return exceptions
    .filter((exception) => exception.migration === migration)
    .map((exception) => `-- squawk-ignore-file ${exception.rule} -- ${exception.reason}`);
}
