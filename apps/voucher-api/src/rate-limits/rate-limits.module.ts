import { Global, Module } from '@nestjs/common';
import { GuessingLimiter } from './guessing-limiter';
import { RateLimitGuard } from './rate-limit.guard';
import { RateLimiters } from './rate-limiters';

/** Global because every runtime controller's guards resolve these from their own module. */
@Global()
@Module({
  providers: [RateLimiters, GuessingLimiter, RateLimitGuard],
  exports: [RateLimiters, GuessingLimiter, RateLimitGuard],
})
export class RateLimitsModule {}
