import type { INestApplication } from '@nestjs/common';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { waitUntil } from './wait';

async function runsByTask(queue: Queue): Promise<Map<string, number>> {
  const jobs = await queue.getJobs(['completed', 'failed', 'active']);
  const runs = new Map<string, number>();
  for (const job of jobs) runs.set(job.name, (runs.get(job.name) ?? 0) + 1);
  return runs;
}

/**
 * The periodic work of replicas sharing one backend: one scheduler per task (not one per replica),
 * and the first run of each task, which every scheduler makes at once, made once in the cluster.
 * Call it after two or more replicas have booted, with intervals long enough that no second run is due.
 */
export async function expectOneScheduledRunPerTask(
  app: INestApplication,
  queueName: string,
  tasks: readonly string[],
  timeoutMs = 20_000,
): Promise<void> {
  const queue = app.get<Queue>(getQueueToken(queueName), { strict: false });
  await waitUntil(
    async () => {
      const runs = await runsByTask(queue);
      return tasks.every((task) => runs.has(task));
    },
    `a first run of each of ${tasks.join(', ')}`,
    timeoutMs,
  );
  const schedulers = (await queue.getJobSchedulers()).map((scheduler) => scheduler.id ?? scheduler.key);
  expect(schedulers.sort()).toEqual([...tasks].sort());
  // A replica that scheduled on its own would have made a first run of its own by now.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(Object.fromEntries(await runsByTask(queue))).toEqual(Object.fromEntries(tasks.map((task) => [task, 1])));
}
