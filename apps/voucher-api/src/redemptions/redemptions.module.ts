import { Module } from '@nestjs/common';
import { VouchersModule } from '../vouchers/vouchers.module';
import { RedemptionsController } from './redemptions.controller';
import { RedemptionsService } from './redemptions.service';
import { RedemptionsStore } from './redemptions.store';

@Module({
  imports: [VouchersModule],
  controllers: [RedemptionsController],
  providers: [RedemptionsStore, RedemptionsService],
})
export class RedemptionsModule {}
