import { startTracing } from '@app/telemetry';

// Imported first by main.ts: the instrumentations hook require, so the SDK starts before NestJS,
// express, pg and ioredis are loaded (and not at all when no OTEL_* exporter is configured).
startTracing('bot-dispatcher');
