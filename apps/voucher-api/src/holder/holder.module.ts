import { Module } from '@nestjs/common';
import { AllocationsModule } from '../allocations/allocations.module';
import { VouchersModule } from '../vouchers/vouchers.module';
import { HolderController } from './holder.controller';
import { HolderService } from './holder.service';
import { SendsController } from './sends.controller';
import { SendsService } from './sends.service';

@Module({
  imports: [AllocationsModule, VouchersModule],
  controllers: [HolderController, SendsController],
  providers: [HolderService, SendsService],
})
export class HolderModule {}
