import { Module } from '@nestjs/common';
import { BotsModule } from '../bots/bots.module';
import { ChatsModule } from '../chats/chats.module';
import { MessagesModule } from '../messages/messages.module';
import { QuotasModule } from '../quotas/quotas.module';
import { UsersModule } from '../users/users.module';
import { VirtualMemberAuditFilter } from './virtual-member-audit.filter';
import { VirtualMemberAuditPurgeService } from './virtual-member-audit-purge.service';
import { VirtualMemberAuditStore } from './virtual-member-audit.store';
import { VirtualMemberAuditController, VirtualMembersController } from './virtual-members.controller';
import { VirtualMembersService } from './virtual-members.service';
import { VirtualMembersStore } from './virtual-members.store';

@Module({
  imports: [BotsModule, ChatsModule, MessagesModule, QuotasModule, UsersModule],
  controllers: [VirtualMembersController, VirtualMemberAuditController],
  providers: [
    VirtualMembersStore,
    VirtualMemberAuditStore,
    VirtualMembersService,
    VirtualMemberAuditFilter,
    VirtualMemberAuditPurgeService,
  ],
})
export class VirtualMembersModule {}
