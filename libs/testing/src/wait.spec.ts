import { eventually, quietPeriod, waitUntil } from './wait';

describe('waiting in tests', () => {
  it('waitUntil returns once the condition holds and names what was not reached otherwise', async () => {
    let calls = 0;
    await waitUntil(() => ++calls >= 3, 'the third call');
    expect(calls).toBe(3);
    await expect(waitUntil(() => false, 'a thing that never happens', 50)).rejects.toThrow(
      'a thing that never happens: not reached within 50 ms',
    );
  });

  it('eventually retries a failing assertion until it passes and answers its value', async () => {
    let calls = 0;
    const value = await eventually(() => {
      calls++;
      expect(calls).toBeGreaterThanOrEqual(3);
      return calls * 10;
    });
    expect(value).toBe(30);
  });

  it("eventually throws the assertion's last failure after its time", async () => {
    let seen = 0;
    const failure = eventually(() => expect(++seen).toBe(-1), 60);
    await expect(failure).rejects.toThrow(/still failing after 60 ms:[\s\S]*Expected: -1/);
    expect(seen).toBeGreaterThan(1);
  });

  it('a quiet period lasts its length and refuses to be anonymous', async () => {
    const started = Date.now();
    await quietPeriod(50, 'nothing arrives');
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    await expect(quietPeriod(10, ' ')).rejects.toThrow('a quiet period needs a reason');
  });
});
