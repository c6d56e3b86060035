import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotTokenGuard } from '../bot-auth/bot-token.guard';
import { BotTokenService } from '../bot-auth/bot-token.service';
import { Bot } from './entities/bot.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Bot])],
  providers: [BotTokenService, BotTokenGuard],
  exports: [TypeOrmModule, BotTokenService, BotTokenGuard],
})
export class BotsModule {}
