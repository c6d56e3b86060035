import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { BotsModule } from '../bots/bots.module';
import { BotFriend } from './entities/bot-friend.entity';
import { FriendRequest } from './entities/friend-request.entity';
import { FriendsService } from './friends.service';

@Module({
  imports: [TypeOrmModule.forFeature([BotFriend, FriendRequest]), BotsModule],
  providers: [FriendsService],
  exports: [FriendsService],
})
export class FriendsModule {}
