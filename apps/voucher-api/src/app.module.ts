import { DynamicModule, Module } from '@nestjs/common';
import { CoordinationModule, coordinationSettings, PeriodicWorkModule } from '@app/coordination';
import { AuthModule } from '@app/auth';
import { EnvelopeModule, voucherEnvelope } from '@app/envelope';
import { IdempotencyModule, IdempotencyPurge } from '@app/idempotency';
import {
  databaseModule,
  HealthModule,
  HttpFoundationModule,
  loggingModule,
  MetricsModule,
  readBuildInfo,
} from '@app/platform';
import { AdminModule } from './admin/admin.module';
import { AllocationsModule } from './allocations/allocations.module';
import { AppAuthModule } from './app-auth/app-auth.module';
import { AppTokensModule } from './app-tokens/app-tokens.module';
import { ApplicationsModule } from './applications/applications.module';
import { AuthorizationsModule } from './authorizations/authorizations.module';
import { BotBindingsModule } from './bot-bindings/bot-bindings.module';
import { VoucherConfig } from './config/voucher.config';
import { HolderModule } from './holder/holder.module';
import { voucherMigrations } from './database/migrations';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { RecipientsModule } from './recipients/recipients.module';
import { RedemptionsModule } from './redemptions/redemptions.module';
import { isSealedRoute, SealedTransportModule } from './sealed-transport/sealed-transport.module';
import { TemplatesModule } from './templates/templates.module';
import { UsersDirectory } from './users/users.directory';
import { UsersModule } from './users/users.module';
import { VouchersModule } from './vouchers/vouchers.module';
import { VoucherErrors } from './voucher-errors';
import { voucherWarmUp } from './warm-up-requests';

@Module({})
export class AppModule {
  static forRoot(config: VoucherConfig): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        loggingModule('voucher-api', config.LOG_LEVEL),
        EnvelopeModule.forRoot(voucherEnvelope, VoucherErrors),
        HttpFoundationModule.forRoot({
          bodyLimit: config.BODY_LIMIT,
          skipJsonBody: isSealedRoute,
          trustProxyHops: config.TRUST_PROXY_HOPS,
        }),
        databaseModule(config, voucherMigrations),
        CoordinationModule.forRoot(coordinationSettings(config, 'voucher-api')),
        AuthModule.forRoot({ config, directory: UsersDirectory, imports: [UsersModule] }),
        IdempotencyModule.forRoot({ ttlMs: config.IDEMPOTENCY_TTL_MS }),
        HealthModule.forRoot(config.coordinationBackend, voucherWarmUp(), readBuildInfo(__dirname)),
        MetricsModule,
        UsersModule,
        ApplicationsModule,
        AuthorizationsModule,
        AppAuthModule,
        RateLimitsModule,
        TemplatesModule,
        VouchersModule,
        RedemptionsModule,
        AdminModule,
        AppTokensModule,
        BotBindingsModule,
        RecipientsModule,
        AllocationsModule,
        HolderModule,
        PeriodicWorkModule.forRoot({ queue: 'voucher-api-periodic', tasks: { 'idempotency-purge': IdempotencyPurge } }),
        SealedTransportModule.forRoot(config),
      ],
      providers: [{ provide: VoucherConfig, useValue: config }],
      exports: [VoucherConfig],
    };
  }
}
