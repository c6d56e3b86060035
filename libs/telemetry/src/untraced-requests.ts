import type { IncomingMessage } from 'node:http';
import { isWarmUpRequest } from './warm-up-mark';

/** The probe and scrape routes every app serves (libs/platform's health and metrics modules), exactly. */
const PROBE_AND_SCRAPE_PATHS = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * Kubernetes probes, Prometheus scrapes and the app's own warm-up requests: a span per probe, scrape or
 * warm-up call would drown the requests. Only the exact paths and this process's own warm-up mark
 * count, so a caller cannot hide a request from tracing with a look-alike path or a made-up header.
 */
export function isProbeScrapeOrWarmUp(req: Pick<IncomingMessage, 'url' | 'headers'>): boolean {
  const url = req.url ?? '';
  const queryAt = url.indexOf('?');
  return PROBE_AND_SCRAPE_PATHS.has(queryAt === -1 ? url : url.slice(0, queryAt)) || isWarmUpRequest(req);
}
