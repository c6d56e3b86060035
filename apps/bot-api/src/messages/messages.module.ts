import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { ChatsModule } from '../chats/chats.module';
import { FilesModule } from '../files/files.module';
import { UpdatesModule } from '../updates/updates.module';
import { UsersModule } from '../users/users.module';
import { chatActionBoardProvider } from './chat-action-board';
import { ChatActionsService } from './chat-actions.service';
import { ChatActionsStore } from './chat-actions.store';
import { ClientMessagesController } from './client-messages.controller';
import { ClientMessagesService } from './client-messages.service';
import { Message } from './entities/message.entity';
import { MessageDetectionBackfill } from './message-detection-backfill.service';
import { MessageEventsService } from './message-events.service';
import { MessageReceiptsStore } from './message-receipts.store';
import { MessageRenderer } from './message-renderer';
import { MessagesService } from './messages.service';
import { MessagesStore } from './messages.store';
import { PostMessageRehearsal } from './post-rehearsal';

@Module({
  imports: [TypeOrmModule.forFeature([Message]), BotsModule, ChatsModule, FilesModule, UpdatesModule, UsersModule],
  controllers: [ClientMessagesController],
  providers: [
    MessagesStore,
    MessageReceiptsStore,
    MessagesService,
    MessageRenderer,
    MessageEventsService,
    ClientMessagesService,
    ChatActionsStore,
    chatActionBoardProvider,
    ChatActionsService,
    MessageDetectionBackfill,
    PostMessageRehearsal,
  ],
  exports: [MessagesStore, MessagesService, MessageRenderer, MessageEventsService, ChatActionsService],
})
export class MessagesModule {}
