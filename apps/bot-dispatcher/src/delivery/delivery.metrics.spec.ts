import { Registry } from 'prom-client';
import { BacklogReading, DeliveryMetrics, IDLE_BOT_SERIES_MS } from './delivery.metrics';

/** The samples of one metric on the /metrics page, as `labels value` lines. */
async function samples(registry: Registry, name: string): Promise<string[]> {
  const page = await registry.metrics();
  return page
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => line.slice(name.length));
}

describe('delivery metrics on an idle replica', () => {
  let registry: Registry;
  let metrics: DeliveryMetrics;
  let inFlight: Array<[string, number]>;
  let backlog: BacklogReading;

  beforeEach(() => {
    registry = new Registry();
    metrics = new DeliveryMetrics(registry);
    inFlight = [];
    backlog = { depths: [], complete: true };
    metrics.observeBots({ inFlight: () => inFlight, queueDepth: async () => backlog });
  });
  afterEach(() => jest.useRealTimers());

  it('reads 0 for every attempt outcome and skip reason before the first job', async () => {
    expect(await samples(registry, 'bot_webhook_attempts_total')).toEqual([
      '{outcome="succeeded"} 0',
      '{outcome="retrying"} 0',
      '{outcome="dead_letter"} 0',
    ]);
    expect(await samples(registry, 'bot_webhook_jobs_skipped_total')).toEqual([
      '{reason="gone"} 0',
      '{reason="finished"} 0',
      '{reason="superseded"} 0',
      '{reason="not_webhook"} 0',
      '{reason="bot_unavailable"} 0',
      '{reason="paused"} 0',
    ]);
  });

  it('keeps the in-flight and backlog series of a bot that was busy, at 0 once it is idle, instead of dropping them', async () => {
    metrics.botBusy('bot-a');
    inFlight = [['bot-a', 2]];
    backlog = { depths: [['bot-a', 7]], complete: true };
    expect(await samples(registry, 'bot_webhook_in_flight')).toEqual(['{bot_id="bot-a"} 2']);
    expect(await samples(registry, 'bot_webhook_queue_depth')).toEqual(['{bot_id="bot-a"} 7']);
    inFlight = [];
    backlog = { depths: [], complete: true };
    expect(await samples(registry, 'bot_webhook_in_flight')).toEqual(['{bot_id="bot-a"} 0']);
    expect(await samples(registry, 'bot_webhook_queue_depth')).toEqual(['{bot_id="bot-a"} 0']);
  });

  it('claims no zero backlog for a bot the reading may have left out (only the largest backlogs are read)', async () => {
    metrics.botBusy('bot-a');
    backlog = { depths: [['bot-b', 40]], complete: false };
    expect(await samples(registry, 'bot_webhook_queue_depth')).toEqual(['{bot_id="bot-b"} 40']);
  });

  it('forgets a bot idle for longer than the retention, so idle series stay bounded', async () => {
    jest.useFakeTimers();
    metrics.botBusy('bot-a');
    expect(await samples(registry, 'bot_webhook_in_flight')).toEqual(['{bot_id="bot-a"} 0']);
    jest.advanceTimersByTime(IDLE_BOT_SERIES_MS + 1000);
    expect(await samples(registry, 'bot_webhook_in_flight')).toEqual([]);
  });
});
