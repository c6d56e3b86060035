import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { ChatsModule } from '../chats/chats.module';
import { FilesModule } from '../files/files.module';
import { MessagesModule } from '../messages/messages.module';
import { QuotasModule } from '../quotas/quotas.module';
import { UsersModule } from '../users/users.module';
import { MessageEditsService } from './message-edits.service';
import { SendingController } from './sending.controller';
import { SendingService } from './sending.service';

@Module({
  imports: [BotsModule, ChatsModule, FilesModule, MessagesModule, QuotasModule, UsersModule],
  controllers: [SendingController],
  providers: [SendingService, MessageEditsService],
  exports: [SendingService, MessageEditsService],
})
export class SendingModule {}
