import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const TEMPLATE_TYPES = ['discount', 'cash_discount', 'gift', 'service'] as const;
export const FULFILLMENT_CATEGORIES = [
  'physical_goods',
  'offline_service',
  'ecommerce_discount',
  'app_credit',
] as const;
export const ACQUISITION_SOURCES = ['free', 'merchant_campaign', 'platform_campaign'] as const;
export const TEMPLATE_STATUSES = ['draft', 'reviewing', 'active', 'rejected', 'paused', 'ended', 'archived'] as const;

/** A JSON value as stored in a jsonb column. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** Structured, caller-defined data (usage rules, terms): any JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** What a template says about where and how its vouchers are used. */
export interface TemplateFulfillment {
  open_mode?: 'in_app' | 'external';
  redemption_url?: string;
  instructions?: string;
}

export type TemplateType = (typeof TEMPLATE_TYPES)[number];
export type FulfillmentCategory = (typeof FULFILLMENT_CATEGORIES)[number];
export type AcquisitionSource = (typeof ACQUISITION_SOURCES)[number];
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** A voucher template. Fixed validity uses validFrom/validTo, relative validity daysAfterClaim. */
@Entity({ name: 'templates' })
export class Template {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'application_id', type: 'uuid' })
  applicationId: string;

  @Column({ name: 'external_template_id', type: 'varchar', length: 128 })
  externalTemplateId: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 32 })
  type: TemplateType;

  @Column({ name: 'issuer_name', type: 'varchar', length: 200 })
  issuerName: string;

  @Column({ name: 'fulfiller_name', type: 'varchar', length: 200 })
  fulfillerName: string;

  @Column({ name: 'fulfillment_category', type: 'varchar', length: 32 })
  fulfillmentCategory: FulfillmentCategory;

  @Column({ name: 'acquisition_source', type: 'varchar', length: 32 })
  acquisitionSource: AcquisitionSource;

  @Column({ name: 'valid_from', type: 'timestamptz', nullable: true })
  validFrom: Date | null;

  @Column({ name: 'valid_to', type: 'timestamptz', nullable: true })
  validTo: Date | null;

  @Column({ name: 'days_after_claim', type: 'integer', nullable: true })
  daysAfterClaim: number | null;

  /** 0 means unlimited. */
  @Column({ name: 'issue_limit', type: 'integer' })
  issueLimit: number;

  @Column({ name: 'per_user_limit', type: 'integer', default: 1 })
  perUserLimit: number;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ name: 'cover_file_id', type: 'varchar', length: 128, nullable: true })
  coverFileId: string | null;

  @Column({ name: 'usage_rules', type: 'jsonb', nullable: true })
  usageRules: JsonObject | null;

  @Column({ type: 'jsonb', nullable: true })
  fulfillment: TemplateFulfillment | null;

  @Column({ type: 'jsonb', nullable: true })
  terms: JsonObject | null;

  @Column({ type: 'varchar', length: 16, default: 'draft' })
  status: TemplateStatus;

  @Column({ name: 'issued_count', type: 'integer', default: 0 })
  issuedCount: number;

  @Column({ name: 'allocated_count', type: 'integer', default: 0 })
  allocatedCount: number;

  @Column({ name: 'rejection_reason', type: 'text', nullable: true })
  rejectionReason: string | null;

  @Column({ name: 'submitted_at', type: 'timestamptz', nullable: true })
  submittedAt: Date | null;

  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
