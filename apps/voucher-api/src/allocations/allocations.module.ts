import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsersModule } from '../users/users.module';
import { AllocationsController } from './allocations.controller';
import { AllocationsService } from './allocations.service';
import { AllocationsStore } from './allocations.store';
import { SendsStore } from './sends.store';

@Module({
  imports: [ApplicationsModule, TemplatesModule, UsersModule],
  controllers: [AllocationsController],
  providers: [AllocationsStore, SendsStore, AllocationsService],
  exports: [AllocationsStore, SendsStore],
})
export class AllocationsModule {}
