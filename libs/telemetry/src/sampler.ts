import { Attributes, Context, Link, SpanKind, trace } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  Sampler,
  SamplingDecision,
  SamplingResult,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import type { TracingConfig } from './tracing-config';

/**
 * BullMQ's housekeeping that a worker runs on its own (waiting for the next job, the stalled-job check,
 * pauses): as root spans they would be a trace every few seconds per worker that follows no work.
 */
const QUEUE_HOUSEKEEPING = new Set([
  'getNextJob',
  'moveStalledJobsToWait',
  'startStalledCheckTimer',
  'rateLimit',
  'pause',
  'resume',
  'close',
]);

/** Drops root spans of queue housekeeping, and leaves every other decision to the configured sampler. */
export class WorkOnlySampler implements Sampler {
  constructor(private readonly inner: Sampler) {}

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (
      spanKind === SpanKind.INTERNAL &&
      trace.getSpanContext(context) === undefined &&
      QUEUE_HOUSEKEEPING.has(spanName.split(' ', 1)[0])
    ) {
      return { decision: SamplingDecision.NOT_RECORD };
    }
    return this.inner.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `WorkOnlySampler{${this.inner.toString()}}`;
  }
}

/** The sampler that OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name, as the specification defines them. */
export function samplerOf(config: Pick<TracingConfig, 'OTEL_TRACES_SAMPLER' | 'OTEL_TRACES_SAMPLER_ARG'>): Sampler {
  const ratio = config.OTEL_TRACES_SAMPLER_ARG;
  const named: Record<TracingConfig['OTEL_TRACES_SAMPLER'], () => Sampler> = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => new TraceIdRatioBasedSampler(ratio),
    parentbased_always_on: () => new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    parentbased_always_off: () => new ParentBasedSampler({ root: new AlwaysOffSampler() }),
    parentbased_traceidratio: () => new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
  };
  return new WorkOnlySampler(named[config.OTEL_TRACES_SAMPLER]());
}
