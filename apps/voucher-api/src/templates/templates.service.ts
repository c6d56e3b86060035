import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import { Template, TemplateStatus } from './entities/template.entity';
import { CreateTemplateDto } from './dto/template-body.dto';
import { UpdateTemplateDto } from './dto/update-template.dto';
import { canTransition, EDITABLE_STATUSES, TEMPLATE_TRANSITIONS, TemplateAction } from './template-lifecycle';
import { toTemplateView, TemplateView } from './template.view';

const UNIQUE_VIOLATION = '23505';

function duplicateExternalId(error: unknown): boolean {
  const driverError =
    error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : {};
  return driverError.code === UNIQUE_VIOLATION && driverError.constraint === 'templates_external_id_unique';
}

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

/** Maps the snake_case body onto the entity; only the fields present are touched. */
function applyBody(template: Template, body: UpdateTemplateDto): void {
  const nulls = NOT_NULLABLE.filter((field) => body[field] === null);
  if (nulls.length > 0) {
    throw ApiError.badRequest(
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
  constructor(private readonly dataSource: DataSource) {}

  async list(applicationId: string, status?: TemplateStatus): Promise<TemplateView[]> {
    const templates = await this.dataSource.manager.find(Template, {
      where: { applicationId, ...(status ? { status } : {}) },
      order: { createdAt: 'ASC', id: 'ASC' },
    });
    return templates.map(toTemplateView);
  }

  async get(applicationId: string, templateId: string): Promise<TemplateView> {
    return toTemplateView(await this.find(this.dataSource.manager, applicationId, templateId));
  }

  async create(applicationId: string, body: CreateTemplateDto): Promise<TemplateView> {
    return this.translateDuplicate(() =>
      this.dataSource.transaction(async (manager) => {
        const template = manager.create(Template, {
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
          issuedCount: 0,
          allocatedCount: 0,
        });
        applyBody(template, body);
        return toTemplateView(await manager.save(template));
      }),
    );
  }

  /** Edits are allowed in draft and rejected only; a rejected template stays rejected until resubmitted. */
  async update(applicationId: string, templateId: string, body: UpdateTemplateDto): Promise<TemplateView> {
    return this.translateDuplicate(() =>
      this.dataSource.transaction(async (manager) => {
        const template = await this.find(manager, applicationId, templateId, true);
        if (!EDITABLE_STATUSES.includes(template.status)) {
          throw ApiError.conflict('CONFLICT', `A template in state ${template.status} cannot be edited`);
        }
        applyBody(template, body);
        return toTemplateView(await manager.save(template));
      }),
    );
  }

  /**
   * Moves a template along its lifecycle with one conditional UPDATE. `applicationId` confines the
   * call to one application (runtime); staff review passes null to reach any application's template.
   */
  async transition(
    applicationId: string | null,
    templateId: string,
    action: TemplateAction,
    reason?: string,
  ): Promise<TemplateView> {
    return this.dataSource.transaction(async (manager) => {
      const template = await this.find(manager, applicationId, templateId, true);
      if (!canTransition(action, template.status)) {
        throw ApiError.conflict('CONFLICT', `A template in state ${template.status} cannot take the action ${action}`);
      }
      template.status = TEMPLATE_TRANSITIONS[action].to;
      if (action === 'submit') {
        template.submittedAt = new Date();
        template.rejectionReason = null;
      }
      if (action === 'approve' || action === 'reject') template.reviewedAt = new Date();
      if (action === 'reject') template.rejectionReason = reason ?? null;
      return toTemplateView(await manager.save(template));
    });
  }

  /** Staff view across applications, oldest submission first. */
  async listForReview(status?: TemplateStatus): Promise<TemplateView[]> {
    const templates = await this.dataSource.manager.find(Template, {
      where: status ? { status } : {},
      order: { submittedAt: { direction: 'ASC', nulls: 'LAST' }, createdAt: 'ASC' },
      take: 500,
    });
    return templates.map(toTemplateView);
  }

  private async find(
    manager: EntityManager,
    applicationId: string | null,
    templateId: string,
    lock = false,
  ): Promise<Template> {
    const template = await manager.findOne(Template, {
      where: applicationId ? { id: templateId, applicationId } : { id: templateId },
      lock: lock ? { mode: 'pessimistic_write' } : undefined,
    });
    if (!template) throw ApiError.notFound('Template');
    return template;
  }

  private async translateDuplicate<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (duplicateExternalId(error)) {
        throw ApiError.conflict('DUPLICATE_EXTERNAL_ID', 'external_template_id is already used in this application');
      }
      throw error;
    }
  }
}
