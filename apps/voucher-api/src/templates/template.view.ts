import { remainingStock } from './template-stock';
import type { Template, TemplateStatus } from './entities/template.entity';

export interface TemplateView {
  id: string;
  application_id: string;
  external_template_id: string;
  name: string;
  type: string;
  issuer_name: string;
  fulfiller_name: string;
  fulfillment_category: string;
  acquisition_source: string;
  validity: { from: string; to: string } | { days_after_claim: number };
  issue_limit: number;
  per_user_limit: number;
  description: string | null;
  cover_file_id: string | null;
  usage_rules: Record<string, unknown> | null;
  fulfillment: Record<string, unknown> | null;
  terms: Record<string, unknown> | null;
  status: TemplateStatus;
  issued_count: number;
  allocated_count: number;
  /** null when issue_limit is 0 (unlimited). */
  remaining: number | null;
  rejection_reason: string | null;
  submitted_at: string | null;
  reviewed_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toTemplateView(t: Template): TemplateView {
  return {
    id: t.id,
    application_id: t.applicationId,
    external_template_id: t.externalTemplateId,
    name: t.name,
    type: t.type,
    issuer_name: t.issuerName,
    fulfiller_name: t.fulfillerName,
    fulfillment_category: t.fulfillmentCategory,
    acquisition_source: t.acquisitionSource,
    validity:
      t.daysAfterClaim !== null
        ? { days_after_claim: t.daysAfterClaim }
        : { from: t.validFrom!.toISOString(), to: t.validTo!.toISOString() },
    issue_limit: t.issueLimit,
    per_user_limit: t.perUserLimit,
    description: t.description,
    cover_file_id: t.coverFileId,
    usage_rules: t.usageRules,
    fulfillment: t.fulfillment,
    terms: t.terms,
    status: t.status,
    issued_count: t.issuedCount,
    allocated_count: t.allocatedCount,
    remaining: remainingStock(t),
    rejection_reason: t.rejectionReason,
    submitted_at: t.submittedAt?.toISOString() ?? null,
    reviewed_at: t.reviewedAt?.toISOString() ?? null,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
