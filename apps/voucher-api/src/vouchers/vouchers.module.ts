import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Voucher } from './entities/voucher.entity';
import { IssueService } from './issue.service';
import { VoucherCredentials } from './voucher-credentials';
import { VoucherFactory } from './voucher.factory';
import { VoucherLookup } from './voucher-lookup';
import { VouchersController } from './vouchers.controller';
import { VouchersService } from './vouchers.service';

@Module({
  imports: [TypeOrmModule.forFeature([Voucher])],
  controllers: [VouchersController],
  providers: [VoucherCredentials, VoucherFactory, VoucherLookup, IssueService, VouchersService],
  exports: [VoucherCredentials, VoucherFactory, VoucherLookup, TypeOrmModule],
})
export class VouchersModule {}
