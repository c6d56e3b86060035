import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { AdminBotsController } from './admin.controller';
import { AdminBotsService } from './admin.service';

@Module({
  imports: [BotsModule],
  controllers: [AdminBotsController],
  providers: [AdminBotsService],
})
export class AdminModule {}
