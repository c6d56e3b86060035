import { Injectable } from '@nestjs/common';
import { ApiError } from '@app/envelope';
import { hostOf, isRefusedAddress } from '@app/webhook-queue';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { BotConfig } from '../config/bot.config';

function invalidUrl(problem: string): ApiError {
  return new ApiError(400, 'VALIDATION', `url ${problem}`, [{ field: 'url', problem }]);
}

/**
 * Refuses webhook URLs that are not HTTPS or whose host resolves to a private, loopback or
 * link-local address (server-side request forgery), unless WEBHOOK_ALLOW_PRIVATE is set. The
 * dispatcher checks the resolved address again on every connection, so a later DNS change cannot
 * point an accepted URL inside the network.
 */
@Injectable()
export class WebhookUrlPolicy {
  constructor(private readonly config: BotConfig) {}

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
    const host = hostOf(url);
    const addresses = isIP(host) ? [host] : await this.resolve(host);
    if (!this.config.WEBHOOK_ALLOW_PRIVATE && addresses.some(isRefusedAddress)) {
      throw invalidUrl('must not resolve to a private, loopback or link-local address');
    }
    return url;
  }

  private async resolve(host: string): Promise<string[]> {
    try {
      const found = await lookup(host, { all: true, verbatim: true });
      if (found.length === 0) throw new Error('no address');
      return found.map((entry) => entry.address);
    } catch {
      throw invalidUrl('host does not resolve');
    }
  }
}
