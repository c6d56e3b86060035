import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { RecipientsController } from './recipients.controller';
import { RecipientsService } from './recipients.service';

@Module({
  imports: [ApplicationsModule],
  controllers: [RecipientsController],
  providers: [RecipientsService],
})
export class RecipientsModule {}
