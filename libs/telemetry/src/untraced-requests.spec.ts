import type { IncomingMessage } from 'node:http';
import { isProbeScrapeOrWarmUp } from './untraced-requests';
import { WARM_UP_HEADER, WARM_UP_MARK } from './warm-up-mark';

const request = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as IncomingMessage;

describe('requests that start no trace', () => {
  it('leaves the probes, the scrape and this process’s own warm-up requests untraced', () => {
    expect(isProbeScrapeOrWarmUp(request('/health/live'))).toBe(true);
    expect(isProbeScrapeOrWarmUp(request('/health/ready'))).toBe(true);
    expect(isProbeScrapeOrWarmUp(request('/metrics'))).toBe(true);
    expect(isProbeScrapeOrWarmUp(request('/metrics?name[]=x'))).toBe(true);
    const warmUp = request('/api/v1/open-platform/vouchers/verify', { [WARM_UP_HEADER]: WARM_UP_MARK });
    expect(isProbeScrapeOrWarmUp(warmUp)).toBe(true);
  });

  it('traces a made-up warm-up header and paths that only start like a probe (defect 8: any x-warm-up value, any /health prefix)', () => {
    expect(isProbeScrapeOrWarmUp(request('/api/v1/bots/sendMessage', { [WARM_UP_HEADER]: 'mark' }))).toBe(false);
    expect(isProbeScrapeOrWarmUp(request('/api/v1/bots/sendMessage', { [WARM_UP_HEADER]: 'x'.repeat(32) }))).toBe(
      false,
    );
    for (const path of ['/healthz-anything', '/health', '/health/live/x', '/metrics-anything', '/metricsx']) {
      expect({ path, untraced: isProbeScrapeOrWarmUp(request(path)) }).toEqual({ path, untraced: false });
    }
  });

  it('traces every other request', () => {
    expect(isProbeScrapeOrWarmUp(request('/api/v1/open-platform/vouchers/verify'))).toBe(false);
    expect(isProbeScrapeOrWarmUp(request('/api/v1/bots/sendMessage'))).toBe(false);
  });
});
