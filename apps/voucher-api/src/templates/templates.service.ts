import { Injectable } from '@nestjs/common';
import { Database, PageQuery, pageAnswer, pageWindow, SqlTarget } from '@app/platform';
import type { TemplateStatus } from './entities/template.entity';
import { changedFields } from '../changed-fields';
import { CreateTemplateDto } from './dto/template-body.dto';
import { UpdateTemplateDto } from './dto/update-template.dto';
import { assertApplicationIssues } from '../applications/application-rules';
import { ApplicationsService } from '../applications/applications.service';
import {
  assertTemplateIssues,
  canTransition,
  EDITABLE_STATUSES,
  TEMPLATE_TRANSITIONS,
  TemplateAction,
} from './template-lifecycle';
import { TemplatePage, toTemplateView, TemplateView } from './template.view';
import { TemplateFields, TemplateRecord, TemplatesStore, violatesExternalTemplateId } from './templates.store';
import { VoucherErrors } from '../voucher-errors';
import { CoverImages } from '../platform-files/cover-images';

/** The review queue shows at most this many templates. */

/** Fields the template cannot be without: `null` is refused for them (for the others it clears the value). */
const NOT_NULLABLE = [
  'external_template_id',
  'name',
  'type',
  'issuer_name',
  'fulfiller_name',
  'fulfillment_category',
  'acquisition_source',
  'validity',
  'issue_limit',
  'per_user_limit',
] as const;

/** A new draft of the application with every optional field empty; the body fills the rest. */
function newDraft(applicationId: string): Partial<TemplateFields> {
  return {
    applicationId,
    status: 'draft',
    perUserLimit: 1,
    description: null,
    coverFileId: null,
    usageRules: null,
    fulfillment: null,
    terms: null,
    rejectionReason: null,
    submittedAt: null,
    reviewedAt: null,
  };
}

/** Maps the snake_case body onto the template's fields; only the fields present are touched. */
function applyBody(template: Partial<TemplateFields>, body: UpdateTemplateDto): void {
  const nulls = NOT_NULLABLE.filter((field) => body[field] === null);
  if (nulls.length > 0) {
    throw VoucherErrors.invalid(
      `Validation failed: ${nulls.map((field) => `${field}: must not be null`).join('; ')}`,
      nulls.map((field) => ({ field, problem: 'must not be null' })),
    );
  }
  if (body.external_template_id !== undefined) template.externalTemplateId = body.external_template_id;
  if (body.name !== undefined) template.name = body.name;
  if (body.type !== undefined) template.type = body.type;
  if (body.issuer_name !== undefined) template.issuerName = body.issuer_name;
  if (body.fulfiller_name !== undefined) template.fulfillerName = body.fulfiller_name;
  if (body.fulfillment_category !== undefined) template.fulfillmentCategory = body.fulfillment_category;
  if (body.acquisition_source !== undefined) template.acquisitionSource = body.acquisition_source;
  if (body.validity !== undefined) {
    const { from, to, days_after_claim } = body.validity;
    template.daysAfterClaim = days_after_claim ?? null;
    template.validFrom = from != null ? new Date(from) : null;
    template.validTo = to != null ? new Date(to) : null;
  }
  if (body.issue_limit !== undefined) template.issueLimit = body.issue_limit;
  if (body.per_user_limit !== undefined) template.perUserLimit = body.per_user_limit;
  if (body.description !== undefined) template.description = body.description;
  if (body.cover_file_id !== undefined) template.coverFileId = body.cover_file_id;
  if (body.usage_rules !== undefined) template.usageRules = body.usage_rules;
  if (body.fulfillment !== undefined) template.fulfillment = { ...body.fulfillment };
  if (body.terms !== undefined) template.terms = body.terms;
}

@Injectable()
export class TemplatesService {
  constructor(
    private readonly database: Database,
    private readonly store: TemplatesStore,
    private readonly applications: ApplicationsService,
    private readonly covers: CoverImages,
  ) {}

  async list(applicationId: string, status?: TemplateStatus): Promise<TemplateView[]> {
    return (await this.store.list(applicationId, status)).map(toTemplateView);
  }

  async get(applicationId: string, templateId: string): Promise<TemplateView> {
    return toTemplateView(await this.require(this.database, applicationId, templateId));
  }

  async create(applicationId: string, body: CreateTemplateDto): Promise<TemplateView> {
    await this.checkCover(applicationId, body);
    return this.translateDuplicate(() =>
      this.database.transaction(async (tx) => {
        const draft = newDraft(applicationId);
        applyBody(draft, body);
        return toTemplateView(await this.store.insert(tx, draft as TemplateFields));
      }),
    );
  }

  /** Edits are allowed in draft and rejected only; a rejected template stays rejected until resubmitted. */
  async update(applicationId: string, templateId: string, body: UpdateTemplateDto): Promise<TemplateView> {
    await this.checkCover(applicationId, body);
    return this.translateDuplicate(() =>
      this.database.transaction(async (tx) => {
        const template = await this.require(tx, applicationId, templateId, true);
        if (!EDITABLE_STATUSES.includes(template.status)) {
          throw VoucherErrors.error('CONFLICT', `A template in state ${template.status} cannot be edited`);
        }
        const edited: Partial<TemplateFields> = {};
        applyBody(edited, body);
        return toTemplateView(await this.save(tx, template, edited));
      }),
    );
  }

  /**
   * Moves a template along its lifecycle under its row lock. `applicationId` confines the call to one
   * application (runtime); staff review passes null to reach any application's template.
   */
  async transition(
    applicationId: string | null,
    templateId: string,
    action: TemplateAction,
    reason?: string,
  ): Promise<TemplateView> {
    return this.database.transaction(async (tx) => {
      const template = await this.require(tx, applicationId, templateId, true);
      if (!canTransition(action, template.status)) {
        throw VoucherErrors.error(
          'CONFLICT',
          `A template in state ${template.status} cannot take the action ${action}`,
        );
      }
      const moved: Partial<TemplateFields> = { status: TEMPLATE_TRANSITIONS[action].to };
      if (action === 'submit') {
        moved.submittedAt = new Date();
        moved.rejectionReason = null;
      }
      if (action === 'approve' || action === 'reject') moved.reviewedAt = new Date();
      if (action === 'reject') moved.rejectionReason = reason ?? null;
      return toTemplateView(await this.save(tx, template, moved));
    });
  }

  /** Staff view across applications, oldest submission first. */
  async listForReview(status: TemplateStatus | undefined, query: PageQuery): Promise<TemplatePage> {
    const window = pageWindow(query);
    const [templates, total] = await this.store.listForReview(status, window);
    return pageAnswer(templates.map(toTemplateView), total, window);
  }

  /**
   * The template, or 404 when it does not exist or (with `applicationId`) belongs to another
   * application. Other modules reach templates through here; `lock` holds the row for the transaction.
   */
  async require(
    on: SqlTarget,
    applicationId: string | null,
    templateId: string,
    lock = false,
  ): Promise<TemplateRecord> {
    const template = await this.store.find(on, applicationId, templateId, lock);
    if (!template) throw VoucherErrors.notFound('Template');
    return template;
  }

  /**
   * The template a hand-out (send, claim) reached through an allocation, while its application and
   * the template itself still hand out vouchers.
   */
  async requireIssuable(on: SqlTarget, templateId: string): Promise<TemplateRecord> {
    const template = await this.require(on, null, templateId);
    assertApplicationIssues(await this.applications.require(on, template.applicationId));
    assertTemplateIssues(template);
    return template;
  }

  /** Counts one more voucher of the template for the user; 409 PER_USER_LIMIT_REACHED past its per_user_limit. */
  async takePerUserQuota(
    on: SqlTarget,
    template: Pick<TemplateRecord, 'id' | 'perUserLimit'>,
    userId: string,
  ): Promise<void> {
    if (!(await this.store.consumePerUserQuota(on, template.id, userId, template.perUserLimit))) {
      throw VoucherErrors.error(
        'PER_USER_LIMIT_REACHED',
        `The recipient already holds the template's limit of ${template.perUserLimit} voucher(s)`,
      );
    }
  }

  /**
   * A given cover_file_id must be an image the application's owner uploaded. Asked of bot-api before
   * the transaction opens, so no row lock or connection is held while another service answers.
   */
  private async checkCover(applicationId: string, body: UpdateTemplateDto): Promise<void> {
    if (typeof body.cover_file_id !== 'string') return;
    const application = await this.applications.require(this.database, applicationId);
    await this.covers.assertOwnedBy(application.ownerId, body.cover_file_id);
  }

  /** The template with `changes` written, or as it was when they change nothing. */
  private async save(
    tx: SqlTarget,
    template: TemplateRecord,
    changes: Partial<TemplateFields>,
  ): Promise<TemplateRecord> {
    const changed = changedFields(template, changes);
    if (Object.keys(changed).length === 0) return template;
    return this.store.update(tx, template.id, changed);
  }

  private async translateDuplicate<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (violatesExternalTemplateId(error)) {
        throw VoucherErrors.error('DUPLICATE_EXTERNAL_ID', 'external_template_id is already used in this application');
      }
      throw error;
    }
  }
}
