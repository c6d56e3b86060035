import { Module } from '@nestjs/common';
import { TemplatesModule } from '../templates/templates.module';
import { IssueService } from './issue.service';
import { VoucherCredentials } from './voucher-credentials';
import { VoucherFactory } from './voucher.factory';
import { VoucherLookup } from './voucher-lookup';
import { VouchersController } from './vouchers.controller';
import { VouchersService } from './vouchers.service';
import { VouchersStore } from './vouchers.store';

@Module({
  imports: [TemplatesModule],
  controllers: [VouchersController],
  providers: [VouchersStore, VoucherCredentials, VoucherFactory, VoucherLookup, IssueService, VouchersService],
  exports: [VouchersStore, VoucherCredentials, VoucherFactory, VoucherLookup],
})
export class VouchersModule {}
