import type { TemplateRecord } from './templates.store';

/** remaining = issue_limit − issued − allocated; null means unlimited (issue_limit 0). */
export function remainingStock(
  template: Pick<TemplateRecord, 'issueLimit' | 'issuedCount' | 'allocatedCount'>,
): number | null {
  if (template.issueLimit === 0) return null;
  return Math.max(template.issueLimit - template.issuedCount - template.allocatedCount, 0);
}
