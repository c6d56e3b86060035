import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { hostOf, HostResolver, isRefusedAddress } from '@app/bot-delivery';
import { BotConfig } from '../config/bot.config';
import { BotErrors } from '../bot-errors';

function invalidUrl(problem: string): ApiError {
  return BotErrors.invalid(`url ${problem}`, [{ field: 'url', problem }]);
}

/**
 * One answer for a host that does not resolve and one that resolves inside the network, so that
 * setWebhook cannot be used to map internal DNS names.
 */
const NOT_PUBLIC = 'must resolve to a public address';

/**
 * Refuses webhook URLs that are not HTTPS or whose host resolves to a private, loopback, link-local
 * or otherwise non-public address (server-side request forgery), unless WEBHOOK_ALLOW_PRIVATE is set.
 * The dispatcher checks the resolved address again on every connection, so a later DNS change cannot
 * point an accepted URL inside the network.
 */
@Injectable()
export class WebhookUrlPolicy {
  private readonly resolver: HostResolver;

  constructor(private readonly config: BotConfig) {
    this.resolver = new HostResolver(config.WEBHOOK_DNS_TIMEOUT_MS);
  }

  async check(raw: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalidUrl('must be an absolute HTTPS URL');
    }
    if (url.protocol !== 'https:') throw invalidUrl('must use HTTPS');
    if (url.username || url.password) throw invalidUrl('must not carry credentials');
    if (url.hash) throw invalidUrl('must not carry a fragment');
    const addresses = await this.resolver.resolve(hostOf(url)).catch(() => null);
    if (!addresses) throw invalidUrl(NOT_PUBLIC);
    if (!this.config.WEBHOOK_ALLOW_PRIVATE && addresses.some(isRefusedAddress)) throw invalidUrl(NOT_PUBLIC);
    return url;
  }
}
