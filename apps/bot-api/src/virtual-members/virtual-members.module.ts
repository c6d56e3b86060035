import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { ChatsModule } from '../chats/chats.module';
import { MessagesModule } from '../messages/messages.module';
import { QuotasModule } from '../quotas/quotas.module';
import { UsersModule } from '../users/users.module';
import { VirtualMemberAuditInterceptor } from './virtual-member-audit.interceptor';
import { VirtualMemberAuditStore } from './virtual-member-audit.store';
import { VirtualMemberAuditController, VirtualMembersController } from './virtual-members.controller';
import { VirtualMembersService } from './virtual-members.service';
import { VirtualMembersStore } from './virtual-members.store';

@Module({
  imports: [BotsModule, ChatsModule, MessagesModule, QuotasModule, UsersModule],
  controllers: [VirtualMembersController, VirtualMemberAuditController],
  providers: [VirtualMembersStore, VirtualMemberAuditStore, VirtualMembersService, VirtualMemberAuditInterceptor],
})
export class VirtualMembersModule {}
