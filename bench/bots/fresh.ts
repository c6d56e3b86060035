import { FRESH_RATE } from '../lib/backend';
import type { BenchProcess } from '../lib/processes';
import type { WebhookReceiver } from '../lib/receiver';
import type { Report } from '../lib/report';
import { botEnv, dispatcherEnv, StackSettings, startApp } from '../lib/stack';
import { APP_CHANNEL, BotSection } from './section';
import { openLoopStream, streamRow } from './steady';

/** The first seconds of new processes, the ones a rollout's traffic meets. */
export const FRESH_SECONDS = 5;

/**
 * As after a rollout: the running bot-api and bot-dispatcher are replaced by new processes, and the
 * steady stream of user messages starts as soon as both answer their readiness probe, with no warm-up
 * window: whatever a fresh process has not compiled or connected yet (beyond its own warm-up before
 * readiness) is in these figures. The rate and targets are the same in both modes. Runs after
 * the memory figures were taken, since it replaces the processes they describe. `track` hands each new
 * process to the run's cleanup.
 */
export async function benchFreshApps(
  section: BotSection,
  settings: StackSettings,
  receiver: WebhookReceiver,
  report: Report,
  track: (process: BenchProcess) => void,
): Promise<void> {
  await section.dispatcher?.stop();
  await section.app.stop();
  const starting = [
    startApp('bot-api', botEnv(settings)),
    startApp('bot-dispatcher', dispatcherEnv(settings, receiver.caFile)),
  ].map((start) => start.then((process) => (track(process), process)));
  const [app, dispatcher] = await Promise.all(starting);
  section.app = app;
  section.dispatcher = dispatcher;
  const { ratePerSecond } = FRESH_RATE;
  const figures = await openLoopStream(app, section.world, receiver, APP_CHANNEL, {
    ratePerSecond,
    warmUpSeconds: 0,
    seconds: FRESH_SECONDS,
  });
  report.add(
    streamRow(
      `fresh apps: first ${FRESH_SECONDS} s at ${ratePerSecond}/s, no warm-up`,
      figures,
      FRESH_RATE,
      '; measured from the moment both processes answered /health/ready',
    ),
  );
}
