import { Module } from '@nestjs/common';
import { ApplicationsController } from './applications.controller';
import { ApplicationsService } from './applications.service';
import { ApplicationsStore } from './applications.store';

@Module({
  controllers: [ApplicationsController],
  providers: [ApplicationsStore, ApplicationsService],
  exports: [ApplicationsStore, ApplicationsService],
})
export class ApplicationsModule {}
