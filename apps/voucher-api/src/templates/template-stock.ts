import { namedStatement, runNamed } from '@app/platform';
import type { EntityManager } from 'typeorm';
import type { Template } from './entities/template.entity';

/** Which counter a consumption lands in: direct issues, or stock handed to senders' backpacks. */
export type StockCounter = 'issued' | 'allocated';

const COLUMNS: Record<StockCounter, string> = { issued: 'issued_count', allocated: 'allocated_count' };

const CONSUME_STOCK: Record<StockCounter, ReturnType<typeof namedStatement>> = {
  issued: consumeStatement('issued'),
  allocated: consumeStatement('allocated'),
};

function consumeStatement(counter: StockCounter) {
  const column = COLUMNS[counter];
  return namedStatement(
    `template_consume_${counter}_stock`,
    `UPDATE templates SET ${column} = ${column} + $2, updated_at = now()
      WHERE id = $1 AND (issue_limit = 0 OR issue_limit - issued_count - allocated_count >= $2)`,
  );
}

const CONSUME_PER_USER_QUOTA = namedStatement(
  'template_consume_per_user_quota',
  `INSERT INTO template_user_issues (template_id, user_id, issued_count) VALUES ($1, $2, 1)
   ON CONFLICT (template_id, user_id) DO UPDATE SET issued_count = template_user_issues.issued_count + 1
     WHERE template_user_issues.issued_count < $3
   RETURNING issued_count`,
);

/** remaining = issue_limit − issued − allocated; null means unlimited (issue_limit 0). */
export function remainingStock(
  template: Pick<Template, 'issueLimit' | 'issuedCount' | 'allocatedCount'>,
): number | null {
  if (template.issueLimit === 0) return null;
  return Math.max(template.issueLimit - template.issuedCount - template.allocatedCount, 0);
}

/**
 * Takes `quantity` units of a template's stock with ONE conditional UPDATE, so concurrent issues and
 * allocations can never overdraw it (the row lock serialises them; the WHERE re-checks the latest
 * counters). Returns false, changing nothing, when not enough remains. Call it inside the use case's
 * transaction so that a later failure gives the stock back, and as late in it as possible: the row
 * lock it takes queues every other issue of the template until the commit.
 */
export async function consumeTemplateStock(
  manager: EntityManager,
  templateId: string,
  quantity: number,
  counter: StockCounter,
): Promise<boolean> {
  if (!Number.isInteger(quantity) || quantity < 1) throw new Error(`invalid stock quantity ${quantity}`);
  const { rowCount } = await runNamed(manager, CONSUME_STOCK[counter], [templateId, quantity]);
  return rowCount === 1;
}

/** Gives stock back (e.g. an allocation's unsent remainder); never drops a counter below zero. */
export async function releaseTemplateStock(
  manager: EntityManager,
  templateId: string,
  quantity: number,
  counter: StockCounter,
): Promise<void> {
  const column = COLUMNS[counter];
  await manager.query(
    `UPDATE templates SET ${column} = GREATEST(${column} - $2, 0), updated_at = now() WHERE id = $1`,
    [templateId, quantity],
  );
}

/**
 * Counts one more voucher of the template for the user, unless that would pass the template's
 * per_user_limit. The upsert's row lock makes concurrent issues to one user queue up and re-check.
 */
export async function consumePerUserQuota(
  manager: EntityManager,
  templateId: string,
  userId: string,
  perUserLimit: number,
): Promise<boolean> {
  const { rowCount } = await runNamed(manager, CONSUME_PER_USER_QUOTA, [templateId, userId, perUserLimit]);
  return rowCount === 1;
}
