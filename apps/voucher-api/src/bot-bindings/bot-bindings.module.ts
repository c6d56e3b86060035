import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { BotBindingsController } from './bot-bindings.controller';
import { BotBindingsService } from './bot-bindings.service';
import { BotBindingsStore } from './bot-bindings.store';

@Module({
  imports: [ApplicationsModule],
  controllers: [BotBindingsController],
  providers: [BotBindingsStore, BotBindingsService],
})
export class BotBindingsModule {}
