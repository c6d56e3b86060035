import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { FriendsModule } from '../friends/friends.module';
import { UpdatesModule } from '../updates/updates.module';
import { ChatEventsService } from './chat-events.service';
import { ChatsService } from './chats.service';
import { ClientChatsController } from './client-chats.controller';
import { Chat } from './entities/chat.entity';
import { ChatJoinRequest } from './entities/chat-join-request.entity';
import { ChatMember } from './entities/chat-member.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Chat, ChatMember, ChatJoinRequest]), UpdatesModule, FriendsModule],
  controllers: [ClientChatsController],
  providers: [ChatsService, ChatEventsService],
  exports: [ChatEventsService, TypeOrmModule],
})
export class ChatsModule {}
