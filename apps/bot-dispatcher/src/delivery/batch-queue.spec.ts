import { BatchQueue } from './batch-queue';

describe('BatchQueue', () => {
  it('with no window runs the items pushed in one tick together and answers each with its own output', async () => {
    const runs: number[][] = [];
    const queue = new BatchQueue<number, string>(
      async (items) => {
        runs.push(items);
        return items.map((n) => `#${n}`);
      },
      { maxBatch: 10, windowMs: 0 },
    );
    const outputs = await Promise.all([1, 2, 3].map((n) => queue.push(n)));
    expect(outputs).toEqual(['#1', '#2', '#3']);
    expect(runs).toEqual([[1, 2, 3]]);
  });

  it('rejects every item of a run that fails, and keeps serving later items', async () => {
    let fail = true;
    const queue = new BatchQueue<number, number>(
      async (items) => {
        if (fail) throw new Error('statement failed');
        return items;
      },
      { maxBatch: 10, windowMs: 0 },
    );
    const failed = [1, 2].map((n) => queue.push(n));
    for (const item of failed) await expect(item).rejects.toThrow('statement failed');
    fail = false;
    await expect(queue.push(3)).resolves.toBe(3);
  });
});
