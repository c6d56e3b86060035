import { Module } from '@nestjs/common';
import { SendQuotaGuard } from './send-quota.guard';
import { SendQuotaService } from './send-quota.service';

@Module({
  providers: [SendQuotaService, SendQuotaGuard],
  exports: [SendQuotaService, SendQuotaGuard],
})
export class QuotasModule {}
