import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { FriendsModule } from '../friends/friends.module';
import { UpdatesModule } from '../updates/updates.module';
import { BotChatsController } from './bot-chats.controller';
import { BotChatsService } from './bot-chats.service';
import { ChatEventsService } from './chat-events.service';
import { ChatsService } from './chats.service';
import { ClientChatsController } from './client-chats.controller';
import { Chat } from './entities/chat.entity';
import { ChatJoinRequest } from './entities/chat-join-request.entity';
import { ChatMember } from './entities/chat-member.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Chat, ChatMember, ChatJoinRequest]), UpdatesModule, FriendsModule, BotsModule],
  controllers: [ClientChatsController, BotChatsController],
  providers: [ChatsService, ChatEventsService, BotChatsService],
  exports: [ChatEventsService, TypeOrmModule],
})
export class ChatsModule {}
