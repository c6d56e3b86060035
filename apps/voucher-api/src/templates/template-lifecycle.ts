import { VoucherErrors } from '../voucher-errors';
import type { TemplateStatus } from './entities/template.entity';
import type { TemplateRecord } from './templates.store';

export type TemplateAction = 'submit' | 'approve' | 'reject' | 'pause' | 'resume' | 'end' | 'archive';

/** Every legal move of a template; anything else is a 409. */
export const TEMPLATE_TRANSITIONS: Record<TemplateAction, { from: readonly TemplateStatus[]; to: TemplateStatus }> = {
  submit: { from: ['draft', 'rejected'], to: 'reviewing' },
  approve: { from: ['reviewing'], to: 'active' },
  reject: { from: ['reviewing'], to: 'rejected' },
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  end: { from: ['active', 'paused'], to: 'ended' },
  archive: { from: ['draft', 'rejected', 'ended'], to: 'archived' },
};

/** States in which the owner may still edit the template. */
export const EDITABLE_STATUSES: readonly TemplateStatus[] = ['draft', 'rejected'];

export function canTransition(action: TemplateAction, from: TemplateStatus): boolean {
  return TEMPLATE_TRANSITIONS[action].from.includes(from);
}

/**
 * Vouchers of a template are handed out (issued, sent, claimed) only while it is active and its
 * validity has not ended.
 */
export function assertTemplateIssues(template: Pick<TemplateRecord, 'status' | 'validTo'>, now = Date.now()): void {
  if (template.status !== 'active') {
    throw VoucherErrors.error('TEMPLATE_NOT_ACTIVE', `The template is ${template.status}; only active templates issue`);
  }
  if (template.validTo && template.validTo.getTime() <= now) {
    throw VoucherErrors.error('TEMPLATE_NOT_ACTIVE', "The template's validity has ended");
  }
}
