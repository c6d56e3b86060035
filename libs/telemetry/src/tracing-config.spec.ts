import { ROOT_CONTEXT, SpanKind, trace, TraceFlags } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { samplerOf } from './sampler';
import { readTracingConfig, TracingConfigError } from './tracing-config';

describe('tracing configuration', () => {
  it('is off without an exporter, so a process that sets nothing loads no SDK', () => {
    expect(readTracingConfig({}).enabled).toBe(false);
    expect(readTracingConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER_ARG: '0.5' }).enabled).toBe(false);
  });

  it('is on with an OTLP endpoint or OTEL_TRACES_EXPORTER=otlp, and off again with none or OTEL_SDK_DISABLED', () => {
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318' }).enabled).toBe(true);
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c.example/v1/traces' }).enabled).toBe(true);
    expect(readTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).enabled).toBe(true);
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    expect(readTracingConfig({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).enabled).toBe(false);
    expect(readTracingConfig({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).enabled).toBe(false);
  });

  it('treats an empty value as unset, as every other variable', () => {
    const config = readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_SAMPLER: '' });
    expect(config.enabled).toBe(false);
    expect(config.OTEL_TRACES_SAMPLER).toBe('parentbased_always_on');
  });

  it('names every bad variable at once', () => {
    let error: unknown;
    try {
      readTracingConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_TRACES_SAMPLER_ARG: '2',
        OTEL_BSP_SCHEDULE_DELAY: 'soon',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TracingConfigError);
    expect([...new Set((error as TracingConfigError).problems.map((p) => p.split(' ')[0]))].sort()).toEqual([
      'OTEL_BSP_SCHEDULE_DELAY',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_TRACES_SAMPLER',
      'OTEL_TRACES_SAMPLER_ARG',
    ]);
  });
});

describe('the sampler', () => {
  const decide = (sampler: ReturnType<typeof samplerOf>, name: string, kind: SpanKind, parent = ROOT_CONTEXT) =>
    sampler.shouldSample(parent, '0af7651916cd43dd8448eb211c80319c', name, kind, {}, []).decision;
  const sampledParent = trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    traceFlags: TraceFlags.SAMPLED,
  });

  it("drops BullMQ's housekeeping as a root span and samples the work", () => {
    const sampler = samplerOf({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: 1 });
    expect(decide(sampler, 'getNextJob webhook-deliveries', SpanKind.INTERNAL)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(sampler, 'moveStalledJobsToWait webhook-deliveries', SpanKind.INTERNAL)).toBe(
      SamplingDecision.NOT_RECORD,
    );
    expect(decide(sampler, 'add webhook-deliveries.deliver', SpanKind.PRODUCER)).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
    expect(decide(sampler, 'getNextJob webhook-deliveries', SpanKind.INTERNAL, sampledParent)).toBe(
      SamplingDecision.RECORD_AND_SAMPLED,
    );
  });

  it('follows a sampled parent with parentbased_traceidratio, whatever the ratio', () => {
    const sampler = samplerOf({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 0 });
    expect(decide(sampler, 'POST /x', SpanKind.SERVER)).toBe(SamplingDecision.NOT_RECORD);
    expect(decide(sampler, 'POST /x', SpanKind.SERVER, sampledParent)).toBe(SamplingDecision.RECORD_AND_SAMPLED);
  });
});
