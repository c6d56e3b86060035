import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { RouteRateLimitInterceptor } from './route-rate-limit.interceptor';

@Module({ providers: [{ provide: APP_INTERCEPTOR, useClass: RouteRateLimitInterceptor }] })
export class RateLimitsModule {}
