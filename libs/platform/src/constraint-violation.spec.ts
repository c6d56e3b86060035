import { violates } from './constraint-violation';

describe('violates', () => {
  it('names a unique or check violation of the given constraint', () => {
    expect(violates({ code: '23505', constraint: 'vouchers_live_code' }, 'vouchers_live_code')).toBe(true);
    expect(violates({ code: '23514', constraint: 'templates_stock' }, 'templates_stock')).toBe(true);
  });

  it('does not name another constraint, another error code, or something that is no pg error', () => {
    expect(violates({ code: '23505', constraint: 'other' }, 'vouchers_live_code')).toBe(false);
    expect(violates({ code: '40001', constraint: 'vouchers_live_code' }, 'vouchers_live_code')).toBe(false);
    expect(violates(undefined, 'vouchers_live_code')).toBe(false);
    expect(violates(new Error('boom'), 'vouchers_live_code')).toBe(false);
  });
});
