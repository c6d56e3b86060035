import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { UsersModule } from '../users/users.module';
import { BotCommandsStore } from './bot-commands.store';
import { CommandsService } from './commands.service';
import { BotCommandSet } from './entities/bot-command-set.entity';
import { ProfileController, VerifyTokenController } from './profile.controller';
import { ProfileService } from './profile.service';

@Module({
  imports: [TypeOrmModule.forFeature([BotCommandSet]), BotsModule, UsersModule],
  controllers: [VerifyTokenController, ProfileController],
  providers: [ProfileService, CommandsService, BotCommandsStore],
  exports: [ProfileService, CommandsService],
})
export class ProfileModule {}
