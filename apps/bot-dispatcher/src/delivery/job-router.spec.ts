import { UnrecoverableError, type Job } from 'bullmq';
import { WEBHOOK_JOB_NAMES, WEBHOOK_JOBS } from '@app/bot-delivery';
import { createJobRouter } from './job-router';

const job = (name: string) => ({ name }) as Job;

describe('createJobRouter', () => {
  it('refuses to build a worker when a job name of the contract has no handler', () => {
    expect(() => createJobRouter(['deliver', 'purge'], { deliver: async () => 'ok' })).toThrow(
      /refuses to start: no handler for job name\(s\): purge/,
    );
  });

  it('refuses a handler for a job name the contract does not define', () => {
    expect(() => createJobRouter(['deliver'], { deliver: async () => 'ok', delivr: async () => 'typo' })).toThrow(
      /handler for unknown job name\(s\): delivr/,
    );
  });

  it('routes each job to the handler of its name', async () => {
    const route = createJobRouter(WEBHOOK_JOB_NAMES, { [WEBHOOK_JOBS.deliver]: async (j) => `handled ${j.name}` });
    await expect(route(job('deliver'))).resolves.toBe('handled deliver');
  });

  it('fails an unknown job for good instead of retrying it', async () => {
    const route = createJobRouter(WEBHOOK_JOB_NAMES, { [WEBHOOK_JOBS.deliver]: async () => 'ok' });
    await expect(route(job('mystery'))).rejects.toBeInstanceOf(UnrecoverableError);
  });
});
