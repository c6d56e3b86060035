import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { VouchersModule } from '../vouchers/vouchers.module';
import { Redemption } from './entities/redemption.entity';
import { Reversal } from './entities/reversal.entity';
import { RedemptionsController } from './redemptions.controller';
import { RedemptionsService } from './redemptions.service';
import { RedemptionsStore } from './redemptions.store';

@Module({
  imports: [TypeOrmModule.forFeature([Redemption, Reversal]), VouchersModule],
  controllers: [RedemptionsController],
  providers: [RedemptionsStore, RedemptionsService],
})
export class RedemptionsModule {}
