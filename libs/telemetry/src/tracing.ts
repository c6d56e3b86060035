import { Attributes, context, trace, TraceFlags } from '@opentelemetry/api';
import type { Telemetry } from 'bullmq';
import type { IncomingMessage } from 'node:http';
import type { IncomingContextPolicy } from './incoming-context';
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
  if (config.enabled) running = startSdk(service, config, trustedHopsOf(env));
}

/**
 * TRUST_PROXY_HOPS as the app reads it (its configuration refuses a bad value at start, so a bad one
 * here only lasts until then): the request span names the client the app counts.
 */
function trustedHopsOf(env: NodeJS.ProcessEnv): number {
  const hops = Number(env.TRUST_PROXY_HOPS ?? 0);
  return Number.isInteger(hops) && hops >= 0 && hops <= 10 ? hops : 0;
}

/**
 * What a span may hold, whoever fills it: a caller writes headers, paths and queries of up to 16 KB,
 * and a statement or a job's failure may be long too. Past these, values are cut and attributes,
 * events and links dropped (and counted as dropped).
 */
const SPAN_LIMITS = {
  attributeCountLimit: 64,
  attributeValueLengthLimit: 4096,
  eventCountLimit: 32,
  linkCountLimit: 8,
  attributePerEventCountLimit: 16,
  attributePerLinkCountLimit: 8,
};

/**
 * The tracer provider, context manager and propagators that `@opentelemetry/sdk-node` would set up, from
 * their own packages: sdk-node also brings every exporter (gRPC, protobuf, Zipkin, Prometheus, logs and
 * metrics), a fifth of each image, of which this build uses the OTLP/HTTP trace exporter alone.
 */
function startSdk(service: string, config: TracingConfig, trustedHops: number): RunningTracing {
  const { propagation, trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } =
    require('@opentelemetry/context-async-hooks') as typeof import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = require('@opentelemetry/core') as typeof import('@opentelemetry/core');
  const { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } =
    require('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
  const { BatchSpanProcessor, TracerProvider } =
    require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace');
  const { registerInstrumentations } =
    require('@opentelemetry/instrumentation') as typeof import('@opentelemetry/instrumentation');
  const { OTLPTraceExporter } =
    require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
  const { BullMQOtel } = require('bullmq-otel') as typeof import('bullmq-otel');
  const { CallerLinkProcessor, IncomingContextPolicy } =
    require('./incoming-context') as typeof import('./incoming-context');
  const { RedactingSpanExporter } = require('./span-redaction') as typeof import('./span-redaction');

  // W3C trace context alone: baggage is neither read from a caller nor passed on to anyone.
  const contextPolicy = new IncomingContextPolicy(
    new W3CTraceContextPropagator(),
    config.OTEL_TRUST_INCOMING_CONTEXT === 'true',
  );

  const provider = new TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES and the host and process, as sdk-node detects them; the name wins over both.
    resource: defaultResource()
      .merge(detectResources({ detectors: [hostDetector, processDetector, envDetector] }))
      .merge(resourceFromAttributes({ 'service.name': config.OTEL_SERVICE_NAME ?? service })),
    sampler: samplerOf(config),
    spanLimits: SPAN_LIMITS,
    // The exporter reads the endpoint, headers and timeout from the standard variables itself; nothing
    // leaves without passing the redaction.
    spanProcessors: [
      new CallerLinkProcessor(),
      new BatchSpanProcessor({
        exporter: new RedactingSpanExporter(new OTLPTraceExporter()),
        scheduledDelayMillis: config.OTEL_BSP_SCHEDULE_DELAY,
      }),
    ],
  });
  const tracerProvider = config.OTEL_TRACES_SAMPLER.startsWith('parentbased_')
    ? new UnsampledShortcutProvider(provider)
    : provider;
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(contextPolicy);
  trace.setGlobalTracerProvider(tracerProvider);
  const unregister = registerInstrumentations({
    tracerProvider,
    instrumentations: instrumentations(contextPolicy, trustedHops),
  });
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

/**
 * The maintained instrumentations, each patching its library as it is first required, told to record
 * nothing a caller's secret or text could be in (RedactingSpanExporter checks again before export).
 */
function instrumentations(contextPolicy: IncomingContextPolicy, trustedHops: number) {
  const { incomingRequestAttributes } = require('./incoming-context') as typeof import('./incoming-context');
  const { safeUrl } = require('./span-redaction') as typeof import('./span-redaction');
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
      // Called just before the instrumentation extracts the caller's context from these headers.
      startIncomingSpanHook: (request) => {
        contextPolicy.markIncoming(request.headers);
        return incomingRequestAttributes(request as IncomingMessage, trustedHops);
      },
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
    // A command's arguments are keys (client addresses, account ids) and values (a queued job's data).
    new IORedisInstrumentation({
      requireParentSpan: true,
      dbStatementSerializer: (command, args) => (args.length > 0 ? `${command} [${args.length} arguments]` : command),
    }),
    // An outgoing call's path and query are its receiver's, and a webhook URL may carry the operator's secret.
    new UndiciInstrumentation({
      requireParentforSpans: true,
      startSpanHook: (request) => {
        const url = safeUrl(`${request.origin}${request.path}`, true);
        return { 'url.full': url, 'url.path': safeUrl(request.path, true), 'url.query': undefined };
      },
    }),
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
