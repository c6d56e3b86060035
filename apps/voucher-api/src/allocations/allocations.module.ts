import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApplicationsModule } from '../applications/applications.module';
import { AllocationsController } from './allocations.controller';
import { AllocationsService } from './allocations.service';
import { Template } from '../templates/entities/template.entity';
import { Allocation } from './entities/allocation.entity';
import { Send } from './entities/send.entity';

@Module({
  imports: [TypeOrmModule.forFeature([Allocation, Send, Template]), ApplicationsModule],
  controllers: [AllocationsController],
  providers: [AllocationsService],
  exports: [TypeOrmModule],
})
export class AllocationsModule {}
