import { TEMPLATE_STATUSES, TemplateStatus } from './entities/template.entity';
import { assertTemplateIssues, canTransition, TEMPLATE_TRANSITIONS, TemplateAction } from './template-lifecycle';

describe('template lifecycle', () => {
  const legal: Array<[TemplateAction, TemplateStatus, TemplateStatus]> = [
    ['submit', 'draft', 'reviewing'],
    ['submit', 'rejected', 'reviewing'],
    ['approve', 'reviewing', 'active'],
    ['reject', 'reviewing', 'rejected'],
    ['pause', 'active', 'paused'],
    ['resume', 'paused', 'active'],
    ['end', 'active', 'ended'],
    ['end', 'paused', 'ended'],
    ['archive', 'draft', 'archived'],
    ['archive', 'rejected', 'archived'],
    ['archive', 'ended', 'archived'],
  ];

  it.each(legal)('allows %s from %s to %s', (action, from, to) => {
    expect(canTransition(action, from)).toBe(true);
    expect(TEMPLATE_TRANSITIONS[action].to).toBe(to);
  });

  it('refuses every other (action, state) pair', () => {
    const allowed = new Set(legal.map(([action, from]) => `${action}:${from}`));
    for (const action of Object.keys(TEMPLATE_TRANSITIONS) as TemplateAction[]) {
      for (const from of TEMPLATE_STATUSES) {
        expect(canTransition(action, from)).toBe(allowed.has(`${action}:${from}`));
      }
    }
  });
});

describe('assertTemplateIssues', () => {
  const now = Date.parse('2026-06-01T00:00:00Z');
  const refusal = (status: TemplateStatus, validTo: Date | null): unknown => {
    try {
      assertTemplateIssues({ status, validTo }, now);
      return undefined;
    } catch (error) {
      return error;
    }
  };

  it('lets an active template within its validity (or without a fixed end) hand out vouchers', () => {
    expect(refusal('active', new Date(now + 1000))).toBeUndefined();
    expect(refusal('active', null)).toBeUndefined();
  });

  it.each(TEMPLATE_STATUSES.filter((status) => status !== 'active'))(
    'refuses a %s template with 409 TEMPLATE_NOT_ACTIVE',
    (status) => {
      expect(refusal(status, null)).toMatchObject({ status: 409, code: 'TEMPLATE_NOT_ACTIVE' });
    },
  );

  it('refuses an active template whose validity has ended with 409 TEMPLATE_NOT_ACTIVE', () => {
    expect(refusal('active', new Date(now))).toMatchObject({ status: 409, code: 'TEMPLATE_NOT_ACTIVE' });
  });
});
