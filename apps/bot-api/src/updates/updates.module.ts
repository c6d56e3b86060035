import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UpdateRecord } from './entities/update.entity';
import { UpdateNotifier } from './update-notifier';
import { UpdatesService } from './updates.service';

@Module({
  imports: [TypeOrmModule.forFeature([UpdateRecord])],
  providers: [UpdateNotifier, UpdatesService],
  exports: [UpdatesService, UpdateNotifier],
})
export class UpdatesModule {}
