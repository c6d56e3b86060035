import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { UsersModule } from '../users/users.module';
import { AdminBotsController } from './admin.controller';
import { AdminBotsService } from './admin.service';

@Module({
  imports: [BotsModule, UsersModule],
  controllers: [AdminBotsController],
  providers: [AdminBotsService],
})
export class AdminModule {}
