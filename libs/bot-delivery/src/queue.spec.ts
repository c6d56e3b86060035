import { deliverJobId, deliverJobOptions, deliveryBackoff, RetryLaterError, webhookJobRetention } from './queue';

describe('webhook queue contract', () => {
  it('derives one job id per delivery and series, without the ":" BullMQ refuses', () => {
    const id = deliverJobId('0b6e1f5c-3a4d-4c1e-8a57-3f1b9d2c7e01', 2);
    expect(id).toBe('delivery-0b6e1f5c-3a4d-4c1e-8a57-3f1b9d2c7e01-s2');
    expect(id).not.toContain(':');
  });

  it('gives a job the attempts left of its series', () => {
    expect(deliverJobOptions({ deliveryId: 'd', series: 1, priorAttempts: 0 })).toMatchObject({
      jobId: 'delivery-d-s1',
      attempts: 5,
    });
    expect(deliverJobOptions({ deliveryId: 'd', series: 1, priorAttempts: 3 }).attempts).toBe(2);
    expect(deliverJobOptions({ deliveryId: 'd', series: 1, priorAttempts: 9 }).attempts).toBe(1);
  });

  it('keeps a bounded trace of finished jobs on Redis, and deletes a completed job as it completes on PostgreSQL', () => {
    expect(webhookJobRetention('redis')).toMatchObject({
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
    });
    expect(webhookJobRetention('postgres')).toMatchObject({ removeOnComplete: true, removeOnFail: { count: 5000 } });
  });

  it('takes the retry delay from the failed attempt', () => {
    expect(deliveryBackoff(1, 'delivery-schedule', new RetryLaterError('HTTP 500', 300000))).toBe(300000);
  });
});
