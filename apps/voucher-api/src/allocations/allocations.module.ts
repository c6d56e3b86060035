import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationsModule } from '../applications/applications.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsersModule } from '../users/users.module';
import { AllocationsController } from './allocations.controller';
import { AllocationsService } from './allocations.service';
import { AllocationsStore } from './allocations.store';
import { Allocation } from './entities/allocation.entity';
import { Send } from './entities/send.entity';
import { SendsStore } from './sends.store';

@Module({
  imports: [TypeOrmModule.forFeature([Allocation, Send]), ApplicationsModule, TemplatesModule, UsersModule],
  controllers: [AllocationsController],
  providers: [AllocationsStore, SendsStore, AllocationsService],
  exports: [AllocationsStore, SendsStore],
})
export class AllocationsModule {}
