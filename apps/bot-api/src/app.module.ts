import { DynamicModule, Module } from '@nestjs/common';
import { CoordinationModule, coordinationSettings } from '@app/coordination';
import { AuthModule } from '@app/auth';
import { EnvelopeModule, botEnvelope } from '@app/envelope';
import { IdempotencyModule } from '@app/idempotency';
import {
  databaseModule,
  HealthModule,
  HttpFoundationModule,
  loggingModule,
  MetricsModule,
  readBuildInfo,
} from '@app/platform';
import { AdminModule } from './admin/admin.module';
import { BotsModule } from './bots/bots.module';
import { BotConfig } from './config/bot.config';
import { botMigrations } from './database/migrations';
import { UsersDirectory } from './users/users.directory';
import { UsersModule } from './users/users.module';
import { FriendsModule } from './friends/friends.module';
import { ProfileModule } from './profile/profile.module';
import { GetUpdatesModule } from './get-updates/get-updates.module';
import { UpdatesModule } from './updates/updates.module';
import { FilesModule } from './files/files.module';
import { InternalFilesModule } from './files/internal-files.module';
import { ChatsModule } from './chats/chats.module';
import { MessagesModule } from './messages/messages.module';
import { DeliveryPartitionsModule } from './delivery-partitions/delivery-partitions.module';
import { InteractionModule } from './interaction/interaction.module';
import { VirtualMembersModule } from './virtual-members/virtual-members.module';
import { QuotasModule } from './quotas/quotas.module';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { SendingModule } from './sending/sending.module';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { StaffDeliveriesModule } from './staff-deliveries/staff-deliveries.module';
import { TelegramModule } from './telegram/telegram.module';
import { isTelegramPath } from './telegram/telegram-route';
import { BotErrors } from './bot-errors';
import { botApiPeriodicWork } from './periodic-work';
import { STORAGE_ROUTE } from './files/storage/disk-file-storage';
import type { Request } from 'express';
import { botWarmUp } from './warm-up-requests';

/**
 * Upload PUTs stream their bytes to the storage driver themselves; the Telegram face reads JSON, forms
 * and multipart bodies itself, as Telegram takes all three.
 */
function readsOwnBody(req: Request): boolean {
  if (isTelegramPath(req.originalUrl)) return true;
  return req.method === 'PUT' && req.originalUrl.startsWith(`/${STORAGE_ROUTE}/`);
}

@Module({})
export class AppModule {
  static forRoot(config: BotConfig): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        loggingModule('bot-api', config.LOG_LEVEL),
        EnvelopeModule.forRoot(botEnvelope, BotErrors),
        HttpFoundationModule.forRoot({
          bodyLimit: config.BODY_LIMIT,
          trustProxyHops: config.TRUST_PROXY_HOPS,
          skipJsonBody: readsOwnBody,
        }),
        databaseModule(config, botMigrations),
        CoordinationModule.forRoot(coordinationSettings(config, 'bot-api')),
        AuthModule.forRoot({
          config,
          directory: UsersDirectory,
          imports: [UsersModule],
          internalApiToken: config.INTERNAL_API_TOKEN,
        }),
        IdempotencyModule.forRoot({ ttlMs: config.IDEMPOTENCY_TTL_MS }),
        HealthModule.forRoot(config.coordinationBackend, botWarmUp(), readBuildInfo(__dirname)),
        MetricsModule,
        botApiPeriodicWork(),
        RateLimitsModule,
        UsersModule,
        BotsModule,
        AdminModule,
        ProfileModule,
        FriendsModule,
        UpdatesModule,
        GetUpdatesModule,
        FilesModule,
        InternalFilesModule,
        ChatsModule,
        MessagesModule,
        DeliveryPartitionsModule,
        InteractionModule,
        VirtualMembersModule,
        QuotasModule,
        SendingModule,
        DeliveriesModule,
        WebhooksModule,
        StaffDeliveriesModule,
        TelegramModule,
      ],
      providers: [{ provide: BotConfig, useValue: config }],
      exports: [BotConfig],
    };
  }
}
