import { busyRetryDelayMs } from './delivery.processor';

describe('busyRetryDelayMs', () => {
  it('waits 250 ms the first time a job finds its bot at its limit', () => {
    expect(busyRetryDelayMs({ attemptsStarted: 1, attemptsMade: 0 })).toBe(250);
    expect(busyRetryDelayMs({ attemptsStarted: 3, attemptsMade: 2 })).toBe(250);
  });

  it('doubles with every deferral of the same job, up to 2 s', () => {
    expect(busyRetryDelayMs({ attemptsStarted: 2, attemptsMade: 0 })).toBe(500);
    expect(busyRetryDelayMs({ attemptsStarted: 4, attemptsMade: 0 })).toBe(2000);
    expect(busyRetryDelayMs({ attemptsStarted: 400, attemptsMade: 1 })).toBe(2000);
  });
});
