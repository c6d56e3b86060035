import { Inject, Injectable } from '@nestjs/common';
import { InvalidatedCache, REDIS } from '@app/platform';
import type Redis from 'ioredis';
import { VoucherConfig } from '../config/voucher.config';
import type { AppCaller } from './app-caller';

/**
 * Token hash → caller (the token and its application), kept for APP_TOKEN_CACHE_MS so a runtime call
 * needs no database read to authenticate. Revoking a token and every change of an application call
 * `tokenChanged` / `applicationChanged` after their commit; the entries go at once here and on every
 * other instance through Redis. Only hashes that matched a stored hash in a constant-time compare are
 * ever put here.
 */
@Injectable()
export class AppTokenCache extends InvalidatedCache<AppCaller> {
  constructor(@Inject(REDIS) redis: Redis, config: VoucherConfig) {
    super({
      name: 'AppTokenCache',
      ttlMs: config.APP_TOKEN_CACHE_MS,
      // Pub/sub channel names are not covered by ioredis' keyPrefix, so the channel carries the prefix itself.
      channel: `${config.REDIS_KEY_PREFIX}voucher-api:app-token-changed`,
      redisUrl: config.REDIS_URL,
      publisher: redis,
    });
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
