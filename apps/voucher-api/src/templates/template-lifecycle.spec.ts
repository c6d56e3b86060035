import { TEMPLATE_STATUSES, TemplateStatus } from './entities/template.entity';
import { canTransition, TEMPLATE_TRANSITIONS, TemplateAction } from './template-lifecycle';

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
