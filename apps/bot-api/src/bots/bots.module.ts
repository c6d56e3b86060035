import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotTokenCache } from './auth/bot-token-cache';
import { BotTokenDirectory } from './auth/bot-token-directory';
import { BotTokenGuard } from './auth/bot-token.guard';
import { BotTokenService } from './auth/bot-token.service';
import { TokenFailureLimiter } from './auth/token-failure-limiter';
import { DeliveriesModule } from '../deliveries/deliveries.module';
import { UsersModule } from '../users/users.module';
import { BotCredentialsService } from './bot-credentials.service';
import { BotsController } from './bots.controller';
import { BotsService } from './bots.service';
import { BotsStore } from './bots.store';
import { BotEntity } from './entities/bot.entity';
import { OneTimeTokenPurgeService } from './one-time-token-purge.service';

@Module({
  imports: [TypeOrmModule.forFeature([BotEntity]), UsersModule, DeliveriesModule],
  controllers: [BotsController],
  providers: [
    BotsStore,
    BotsService,
    BotCredentialsService,
    OneTimeTokenPurgeService,
    BotTokenCache,
    BotTokenDirectory,
    BotTokenService,
    TokenFailureLimiter,
    BotTokenGuard,
  ],
  exports: [TypeOrmModule, BotsStore, BotTokenCache, BotTokenService, BotTokenGuard, BotCredentialsService],
})
export class BotsModule {}
