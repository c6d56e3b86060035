import { advisoryLockId } from './idempotency-target';

describe('advisoryLockId', () => {
  it('is the signed first 64 bits of SHA-256("idempotency", tenant, key), stable across processes', () => {
    // Pinned: two replicas must derive the same lock for a key, also after an upgrade.
    expect(advisoryLockId('tenant-a', 'order-1')).toBe('-8199220434391664320');
  });

  it('gives another tenant with the same key a lock of its own', () => {
    expect(advisoryLockId('tenant-b', 'order-1')).toBe('2682676124849241555');
  });

  it('gives another key of the same tenant a lock of its own, so requests with different keys run side by side', () => {
    expect(advisoryLockId('tenant-a', 'order-2')).toBe('1866632618226489406');
  });

  it('keeps tenant and key apart: (a, b) is not (ab, empty)', () => {
    expect(advisoryLockId('a', 'b')).not.toBe(advisoryLockId('ab', ''));
  });
});
