import { Module } from '@nestjs/common';
import { ApplicationsModule } from '../applications/applications.module';
import { UsersModule } from '../users/users.module';
import { RecipientsController } from './recipients.controller';
import { RecipientSearchThrottle } from './recipient-search.throttle';
import { RecipientsService } from './recipients.service';

@Module({
  imports: [ApplicationsModule, UsersModule],
  controllers: [RecipientsController],
  providers: [RecipientsService, RecipientSearchThrottle],
})
export class RecipientsModule {}
