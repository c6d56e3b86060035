import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { FilesModule } from '../files/files.module';
import { MessagesModule } from '../messages/messages.module';
import { QuotasModule } from '../quotas/quotas.module';
import { MessageEditsService } from './message-edits.service';
import { SendingController } from './sending.controller';
import { SendingService } from './sending.service';

@Module({
  imports: [BotsModule, FilesModule, MessagesModule, QuotasModule],
  controllers: [SendingController],
  providers: [SendingService, MessageEditsService],
})
export class SendingModule {}
