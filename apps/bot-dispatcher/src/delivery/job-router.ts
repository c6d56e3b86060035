import { UnrecoverableError, type Job } from 'bullmq';

export type JobHandler = (job: Job, token?: string) => Promise<unknown>;

/**
 * Maps each job name of the queue contract to its handler. Built at start-up: a name without a
 * handler (or a handler for a name the contract does not know) stops the worker from starting,
 * instead of failing jobs one by one in production.
 */
export function createJobRouter(
  names: readonly string[],
  handlers: Record<string, JobHandler>,
): (job: Job, token?: string) => Promise<unknown> {
  const missing = names.filter((name) => typeof handlers[name] !== 'function');
  const unknown = Object.keys(handlers).filter((name) => !names.includes(name));
  if (missing.length > 0 || unknown.length > 0) {
    const problems = [
      ...(missing.length > 0 ? [`no handler for job name(s): ${missing.join(', ')}`] : []),
      ...(unknown.length > 0 ? [`handler for unknown job name(s): ${unknown.join(', ')}`] : []),
    ];
    throw new Error(`webhook worker refuses to start: ${problems.join('; ')}`);
  }
  const table = new Map(Object.entries(handlers));
  return async (job: Job, token?: string) => {
    const handler = table.get(job.name);
    // A producer newer than this worker: failing for good is safer than guessing.
    if (!handler) throw new UnrecoverableError(`no handler for job name ${job.name}`);
    return handler(job, token);
  };
}
