import { Inject, Injectable } from '@nestjs/common';
import { CHANNEL_BUS, type ChannelBus, InvalidatedCache } from '@app/platform';
import { VoucherConfig } from '../config/voucher.config';
import type { AppCaller } from './app-caller';

/**
 * Token hash → caller (the token and its application), kept for APP_TOKEN_CACHE_MS so a runtime call
 * needs no database read to authenticate. Revoking a token and every change of an application call
 * `tokenChanged` / `applicationChanged` after their commit; the entries go at once here and on every
 * other instance through the channel bus. Only hashes that matched a stored hash in a constant-time compare are
 * ever put here.
 */
@Injectable()
export class AppTokenCache extends InvalidatedCache<AppCaller> {
  constructor(@Inject(CHANNEL_BUS) bus: ChannelBus, config: VoucherConfig) {
    super({ name: 'AppTokenCache', ttlMs: config.APP_TOKEN_CACHE_MS, channel: 'voucher-api:app-token-changed', bus });
  }

  putCaller(tokenHash: string, caller: AppCaller, startedAt: number): void {
    this.put(tokenHash, caller, [tokenGroup(caller.tokenId), applicationGroup(caller.application.id)], startedAt);
  }

  tokenChanged(tokenId: string): void {
    this.invalidate(tokenGroup(tokenId));
  }

  applicationChanged(applicationId: string): void {
    this.invalidate(applicationGroup(applicationId));
  }
}

const tokenGroup = (tokenId: string) => `token:${tokenId}`;
const applicationGroup = (applicationId: string) => `application:${applicationId}`;
