import type { IncomingMessage } from 'node:http';
import { isProbeScrapeOrWarmUp } from './tracing';

const request = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as IncomingMessage;

describe('requests that start no trace', () => {
  it('leaves probes, scrapes and warm-up requests untraced', () => {
    expect(isProbeScrapeOrWarmUp(request('/health/ready'))).toBe(true);
    expect(isProbeScrapeOrWarmUp(request('/metrics'))).toBe(true);
    expect(isProbeScrapeOrWarmUp(request('/api/v1/open-platform/vouchers/verify', { 'x-warm-up': 'mark' }))).toBe(true);
  });

  it('traces every other request', () => {
    expect(isProbeScrapeOrWarmUp(request('/api/v1/open-platform/vouchers/verify'))).toBe(false);
    expect(isProbeScrapeOrWarmUp(request('/api/v1/bots/sendMessage'))).toBe(false);
  });
});
