import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsIn, IsInt, IsNumber, IsOptional, IsString, IsUrl, Max, Min, MinLength, validateSync } from 'class-validator';

export const TRACE_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type TraceSamplerName = (typeof TRACE_SAMPLERS)[number];

const COLLECTOR_URL = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * The standard OpenTelemetry variables that decide whether and how a process traces. The OTLP
 * exporter reads its own transport variables (`OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT`,
 * `…_COMPRESSION`) itself.
 */
export class TracingConfig {
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'OTEL_SDK_DISABLED must be true or false' })
  OTEL_SDK_DISABLED?: 'true' | 'false';

  /** `otlp` or `none`; unset, traces are exported when an OTLP endpoint is set. */
  @IsOptional()
  @IsIn(['otlp', 'none'], { message: 'OTEL_TRACES_EXPORTER must be otlp or none' })
  OTEL_TRACES_EXPORTER?: 'otlp' | 'none';

  @IsOptional()
  @IsUrl(COLLECTOR_URL, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @IsUrl(COLLECTOR_URL, { message: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  /** The build ships the OTLP/HTTP JSON exporter, which every collector's HTTP receiver (port 4318) accepts. */
  @IsOptional()
  @IsIn(['http/json'], { message: 'OTEL_EXPORTER_OTLP_PROTOCOL must be http/json (the exporter this build ships)' })
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;

  @IsOptional()
  @IsIn(['http/json'], {
    message: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL must be http/json (the exporter this build ships)',
  })
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  OTEL_SERVICE_NAME?: string;

  @IsIn(TRACE_SAMPLERS, { message: `OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')}` })
  OTEL_TRACES_SAMPLER: TraceSamplerName = 'parentbased_always_on';

  /** The ratio of the `traceidratio` samplers, 0 to 1. */
  @Type(() => Number)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'OTEL_TRACES_SAMPLER_ARG must be a number' })
  @Min(0, { message: 'OTEL_TRACES_SAMPLER_ARG must be between 0 and 1' })
  @Max(1, { message: 'OTEL_TRACES_SAMPLER_ARG must be between 0 and 1' })
  OTEL_TRACES_SAMPLER_ARG = 1;

  /**
   * Whether an incoming request's `traceparent` is trusted: continued, with its sampled flag honoured.
   * Off by default, as an internet-facing API wants: the request starts its own trace, linked to the
   * caller's (libs/telemetry/src/incoming-context.ts).
   */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'OTEL_TRUST_INCOMING_CONTEXT must be true or false' })
  OTEL_TRUST_INCOMING_CONTEXT: 'true' | 'false' = 'false';

  /** How long finished spans wait in the batch before they are sent, in milliseconds. */
  @Type(() => Number)
  @IsInt({ message: 'OTEL_BSP_SCHEDULE_DELAY must be an integer (milliseconds)' })
  @Min(10, { message: 'OTEL_BSP_SCHEDULE_DELAY must be between 10 and 60000' })
  @Max(60000, { message: 'OTEL_BSP_SCHEDULE_DELAY must be between 10 and 60000' })
  OTEL_BSP_SCHEDULE_DELAY = 5000;

  /** Tracing is on when an exporter is configured: an OTLP endpoint, or `OTEL_TRACES_EXPORTER=otlp`. */
  get enabled(): boolean {
    if (this.OTEL_SDK_DISABLED === 'true' || this.OTEL_TRACES_EXPORTER === 'none') return false;
    return (
      this.OTEL_TRACES_EXPORTER === 'otlp' ||
      this.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
      this.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined
    );
  }
}

export class TracingConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'TracingConfigError';
  }
}

/** Reads the OTEL_* variables (an empty value is unset); throws a TracingConfigError naming every bad one. */
export function readTracingConfig(env: NodeJS.ProcessEnv = process.env): TracingConfig {
  const defined = Object.fromEntries(
    Object.entries(env).filter(([name, value]) => name.startsWith('OTEL_') && value !== undefined && value !== ''),
  );
  const config = plainToInstance(TracingConfig, defined, { exposeDefaultValues: true });
  const problems = validateSync(config, { forbidUnknownValues: false }).flatMap((error) =>
    Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(error.property) ? message : `${error.property}: ${message}`,
    ),
  );
  if (problems.length > 0) throw new TracingConfigError([...new Set(problems)]);
  return config;
}
