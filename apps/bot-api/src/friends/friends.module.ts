import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { UpdatesModule } from '../updates/updates.module';
import { UsersModule } from '../users/users.module';
import { BotFriendsStore } from './bot-friends.store';
import { BotFriend } from './entities/bot-friend.entity';
import { FriendRequest } from './entities/friend-request.entity';
import { ClientFriendRequestsController, FriendsController } from './friends.controller';
import { FriendRequestsStore } from './friend-requests.store';
import { FriendsService } from './friends.service';

@Module({
  imports: [TypeOrmModule.forFeature([BotFriend, FriendRequest]), BotsModule, UpdatesModule, UsersModule],
  controllers: [FriendsController, ClientFriendRequestsController],
  providers: [FriendsService, BotFriendsStore, FriendRequestsStore],
  exports: [FriendsService],
})
export class FriendsModule {}
