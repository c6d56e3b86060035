import { context, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { UnsampledShortcutProvider } from './unsampled-shortcut';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN_ID = 'b7ad6b7169203331';

function setUp() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const tracer = new UnsampledShortcutProvider(provider).getTracer('test');
  const under = (traceFlags: TraceFlags) =>
    trace.setSpanContext(ROOT_CONTEXT, { traceId: TRACE_ID, spanId: PARENT_SPAN_ID, traceFlags, isRemote: true });
  const finished = async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { finished, tracer, under };
}

describe('UnsampledShortcutProvider', () => {
  it('answers a span under an unsampled parent with a non-recording span carrying that parent context', async () => {
    const { finished, tracer, under } = setUp();
    const span = tracer.startSpan('SELECT', {}, under(TraceFlags.NONE));
    span.end();
    expect(span.isRecording()).toBe(false);
    expect(span.spanContext()).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_SPAN_ID, traceFlags: 0 });
    expect(await finished()).toHaveLength(0);
  });

  it('records a span under a sampled parent as the SDK does', async () => {
    const { finished, tracer, under } = setUp();
    tracer.startSpan('SELECT', {}, under(TraceFlags.SAMPLED)).end();
    const [exported] = await finished();
    expect(exported.name).toBe('SELECT');
    expect(exported.spanContext().traceId).toBe(TRACE_ID);
    expect(exported.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
  });

  it('leaves a span asked to be a root to the sampler even under an unsampled parent', async () => {
    const { finished, tracer, under } = setUp();
    tracer.startSpan('job', { root: true }, under(TraceFlags.NONE)).end();
    const [exported] = await finished();
    expect(exported.spanContext().traceId).not.toBe(TRACE_ID);
  });

  it('runs startActiveSpan with the shortcut span active and returns the callback result', () => {
    const { tracer, under } = setUp();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    try {
      const activeSpanId = tracer.startActiveSpan('work', {}, under(TraceFlags.NONE), (span) => {
        span.end();
        return trace.getActiveSpan()?.spanContext().spanId;
      });
      expect(activeSpanId).toBe(PARENT_SPAN_ID);
    } finally {
      context.disable();
    }
  });
});
