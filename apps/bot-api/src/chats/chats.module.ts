import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { FriendsModule } from '../friends/friends.module';
import { UpdatesModule } from '../updates/updates.module';
import { UsersModule } from '../users/users.module';
import { BotChatsController } from './bot-chats.controller';
import { BotChatsService } from './bot-chats.service';
import { ChatEventsService } from './chat-events.service';
import { ChatsService } from './chats.service';
import { ChatsStore } from './chats.store';
import { ClientChatsController } from './client-chats.controller';
import { Chat } from './entities/chat.entity';
import { ChatJoinRequest } from './entities/chat-join-request.entity';
import { ChatMember } from './entities/chat-member.entity';

@Module({
  imports: [
    TypeOrmModule.forFeature([Chat, ChatMember, ChatJoinRequest]),
    UpdatesModule,
    FriendsModule,
    BotsModule,
    UsersModule,
  ],
  controllers: [ClientChatsController, BotChatsController],
  providers: [ChatsStore, ChatsService, ChatEventsService, BotChatsService],
  exports: [ChatsStore, ChatEventsService, TypeOrmModule, BotChatsService],
})
export class ChatsModule {}
