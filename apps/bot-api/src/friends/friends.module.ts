import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { UpdatesModule } from '../updates/updates.module';
import { UsersModule } from '../users/users.module';
import { BotFriend } from './entities/bot-friend.entity';
import { FriendRequest } from './entities/friend-request.entity';
import { ClientFriendRequestsController, FriendsController } from './friends.controller';
import { FriendsService } from './friends.service';

@Module({
  imports: [TypeOrmModule.forFeature([BotFriend, FriendRequest]), BotsModule, UpdatesModule, UsersModule],
  controllers: [FriendsController, ClientFriendRequestsController],
  providers: [FriendsService],
  exports: [FriendsService],
})
export class FriendsModule {}
