import { Module } from '@nestjs/common';
import { AllocationsModule } from '../allocations/allocations.module';
import { ApplicationsModule } from '../applications/applications.module';
import { AuthorizationsModule } from '../authorizations/authorizations.module';
import { TemplatesModule } from '../templates/templates.module';
import { UsersModule } from '../users/users.module';
import { VouchersModule } from '../vouchers/vouchers.module';
import { HolderController } from './holder.controller';
import { HolderService } from './holder.service';
import { SendsController } from './sends.controller';
import { SendsService } from './sends.service';

@Module({
  imports: [AllocationsModule, ApplicationsModule, AuthorizationsModule, TemplatesModule, UsersModule, VouchersModule],
  controllers: [HolderController, SendsController],
  providers: [HolderService, SendsService],
})
export class HolderModule {}
