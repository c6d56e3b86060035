import { Attributes, context, trace, TraceFlags } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import { samplerOf } from './sampler';
import { UnsampledShortcutProvider } from './unsampled-shortcut';
import { readTracingConfig, TracingConfig, TracingConfigError } from './tracing-config';
import { isProbeScrapeOrWarmUp } from './untraced-requests';

export { isProbeScrapeOrWarmUp };

interface RunningTracing {
  shutdown(): Promise<void>;
  queueTelemetry: Telemetry;
}

/** Set once by startTracing when an exporter is configured; while unset, nothing here does any work. */
let running: RunningTracing | undefined;

/**
 * Starts the OpenTelemetry SDK when the OTEL_* variables configure an exporter, and does nothing
 * otherwise (no SDK, no instrumentation, no per-request cost). It must run before NestJS, express, pg
 * and ioredis are first required, which is why each app's main.ts imports its `tracing.ts` first: the
 * instrumentations hook `require`. A bad OTEL_* value stops the process like any bad variable (78).
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env): void {
  if (running) return;
  let config: TracingConfig;
  try {
    config = readTracingConfig(env);
  } catch (error) {
    if (error instanceof TracingConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }
  if (config.enabled) running = startSdk(service, config);
}

/**
 * The tracer provider, context manager and propagators that `@opentelemetry/sdk-node` would set up, from
 * their own packages: sdk-node also brings every exporter (gRPC, protobuf, Zipkin, Prometheus, logs and
 * metrics), a fifth of each image, of which this build uses the OTLP/HTTP trace exporter alone.
 */
function startSdk(service: string, config: TracingConfig): RunningTracing {
  const { propagation, trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } =
    require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BatchSpanProcessor, TracerProvider } =
    require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');

  const provider = new TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES and the host and process, as sdk-node detects them; the name wins over both.
    resource: defaultResource()
      .merge(detectResources({ detectors: [hostDetector, processDetector, envDetector] }))
      .merge(resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME ?? service })),
    sampler: samplerOf(config),
    // The exporter reads the endpoint, headers and timeout from the standard variables itself.
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter(),
        scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
      }),
    ],
  });
  const tracerProvider = config.OTEL_TRACES_SAMPLER.startsWith('parentbased_')
    ? new UnsampledShortcutProvider(provider)
    : provider;
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);
  const unregister = registerInstrumentations({ tracerProvider, instrumentations: instrumentations() });
  return {
    shutdown: async () => {
      unregister();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
    queueTelemetry: new BullMQOtel({ tracerName: 'bullmq' }),
  };
}

/** The maintained instrumentations, each patching its library as it is first required. */
function instrumentations() {
  const { HttpInstrumentation } =
    require('@opentelemetry/instrumentation-http') as typeof import('@opentelemetry/instrumentation-http');
  const { ExpressInstrumentation, ExpressLayerType } =
    require('@opentelemetry/instrumentation-express') as typeof import('@opentelemetry/instrumentation-express');
  const { NestInstrumentation } =
    require('@opentelemetry/instrumentation-nestjs-core') as typeof import('@opentelemetry/instrumentation-nestjs-core');
  const { PgInstrumentation } =
    require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const { UndiciInstrumentation } =
    require('@opentelemetry/instrumentation-undici') as typeof import('@opentelemetry/instrumentation-undici');
  return [
    // Outgoing calls all go through undici (fetch, the webhook sender), traced below; node:http's client
    // carries only the exporter's own requests.
    new HttpInstrumentation({
      ignoreIncomingRequestHook: isProbeScrapeOrWarmUp,
      disableOutgoingRequestInstrumentation: true,
    }),
    // Names the request's span by its route pattern; NestJS's spans below show the controller and
    // handler, so a span per express layer (every app-wide middleware among them) would add only noise.
    new ExpressInstrumentation({
      ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.REQUEST_HANDLER, ExpressLayerType.ROUTER],
    }),
    new NestInstrumentation(),
    // Statements and commands only inside a traced piece of work (never a pool's idle checks or a
    // scrape's gauge query), and never their parameter values.
    new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false, ignoreConnectSpans: true }),
    new IORedisInstrumentation({ requireParentSpan: true }),
    new UndiciInstrumentation({ requireParentforSpans: true }),
  ];
}

/** Whether this process exports traces. */
export function tracingActive(): boolean {
  return running !== undefined;
}

/** BullMQ's `telemetry` option for a Queue or Worker: the job carries its producer's trace context to the worker. */
export function queueTelemetry(): { telemetry?: Telemetry } {
  return running ? { telemetry: running.queueTelemetry } : {};
}

/** Exports the spans still buffered; at shutdown, so the last requests' traces are not lost. */
export async function flushTracing(): Promise<void> {
  const stopping = running;
  running = undefined;
  await stopping?.shutdown();
}

/**
 * pino's `mixin`: the trace and span of the line's work, when that work is traced (sampled), so a
 * log line leads to its trace and back. Set only while tracing is on.
 */
export function traceLogFields(): { trace_id?: string; span_id?: string } {
  // A new object each time: pino merges the line's own fields into it.
  const span = trace.getSpan(context.active());
  if (!span) return {};
  const { traceId, spanId, traceFlags } = span.spanContext();
  if ((traceFlags & TraceFlags.SAMPLED) === 0) return {};
  return { trace_id: traceId, span_id: spanId };
}

/** Adds attributes to the span of the current work (a queue job's attempt, a request); nothing while tracing is off. */
export function annotateSpan(attributes: Attributes): void {
  if (running) trace.getSpan(context.active())?.setAttributes(attributes);
}
