import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationsModule } from '../applications/applications.module';
import { BotBindingsController } from './bot-bindings.controller';
import { BotBindingsService } from './bot-bindings.service';
import { BotBindingsStore } from './bot-bindings.store';
import { BotBinding } from './entities/bot-binding.entity';

@Module({
  imports: [TypeOrmModule.forFeature([BotBinding]), ApplicationsModule],
  controllers: [BotBindingsController],
  providers: [BotBindingsStore, BotBindingsService],
})
export class BotBindingsModule {}
