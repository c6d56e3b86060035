import { remainingStock } from './template-stock';
import type { TemplateRecord } from './templates.store';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { nullableObject } from '../api-schema';
import {
  ACQUISITION_SOURCES,
  type AcquisitionSource,
  FULFILLMENT_CATEGORIES,
  type FulfillmentCategory,
  type JsonObject,
  type TemplateFulfillment,
  TEMPLATE_STATUSES,
  TEMPLATE_TYPES,
  type TemplateStatus,
  type TemplateType,
} from './entities/template.entity';

export class ValidityView {
  @ApiPropertyOptional({ format: 'date-time', description: 'Fixed validity start' })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Fixed validity end' })
  to?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 3650,
    description: 'Relative validity: days from issue or claim',
  })
  days_after_claim?: number;
}

export class FulfillmentView implements TemplateFulfillment {
  @ApiPropertyOptional({ enum: ['in_app', 'external'] })
  open_mode?: 'in_app' | 'external';

  @ApiPropertyOptional({ format: 'uri', description: 'HTTPS address where the voucher is used' })
  redemption_url?: string;

  @ApiPropertyOptional()
  instructions?: string;
}

@ApiExtraModels(FulfillmentView)
export class TemplateView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty()
  external_template_id: string;

  @ApiProperty()
  name: string;

  @ApiProperty({ enum: TEMPLATE_TYPES })
  type: TemplateType;

  @ApiProperty()
  issuer_name: string;

  @ApiProperty()
  fulfiller_name: string;

  @ApiProperty({ enum: FULFILLMENT_CATEGORIES })
  fulfillment_category: FulfillmentCategory;

  @ApiProperty({ enum: ACQUISITION_SOURCES })
  acquisition_source: AcquisitionSource;

  @ApiProperty({ type: ValidityView, description: '`from` and `to`, or `days_after_claim`' })
  validity: ValidityView;

  @ApiProperty({ type: 'integer', minimum: 0, description: '0 means unlimited' })
  issue_limit: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100 })
  per_user_limit: number;

  @ApiProperty({ type: String, nullable: true })
  description: string | null;

  @ApiProperty({ type: String, nullable: true })
  cover_file_id: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Structured usage rules, as the application defined them',
  })
  usage_rules: JsonObject | null;

  @ApiProperty(nullableObject(FulfillmentView, 'Where and how the vouchers are used'))
  fulfillment: FulfillmentView | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Structured terms snapshot, as the application defined them',
  })
  terms: JsonObject | null;

  @ApiProperty({ enum: TEMPLATE_STATUSES })
  status: TemplateStatus;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Vouchers issued directly' })
  issued_count: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: "Units handed to senders' backpacks" })
  allocated_count: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    nullable: true,
    description: 'issue_limit − issued − allocated; null when unlimited',
  })
  remaining: number | null;

  @ApiProperty({ type: String, nullable: true })
  rejection_reason: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  submitted_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  reviewed_at: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ format: 'date-time' })
  updated_at: string;
}

/** A page of the staff review queue. */
export class TemplatePage extends PageOf(TemplateView) {}

export function toTemplateView(t: TemplateRecord): TemplateView {
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
