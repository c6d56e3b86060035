import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { UserView } from '../users/user.view';
import type { VirtualMemberAuditRow } from './virtual-member-audit.store';

export class VirtualMemberView {
  @ApiProperty({ type: UserView, description: 'The member as chat reads show it, with `is_virtual: true`' })
  user: UserView;

  @ApiProperty({ format: 'uuid' })
  chat_id: string;

  @ApiProperty({ description: 'The bot that created it and alone speaks as it' })
  bot_id: string;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class VirtualMemberPage extends PageOf(VirtualMemberView) {}

export class VirtualMemberAuditView {
  @ApiProperty()
  id: string;

  @ApiProperty()
  bot_id: string;

  @ApiProperty({
    enum: ['create', 'list', 'send'],
    description: 'createChatVirtualMember, listChatVirtualMembers, sendAsVirtualMember',
  })
  action: 'create' | 'list' | 'send';

  @ApiProperty({ enum: ['succeeded', 'refused'] })
  outcome: 'succeeded' | 'refused';

  @ApiProperty({ type: String, nullable: true, description: 'The error code of a refused call' })
  error_code: string | null;

  @ApiProperty({ type: String, nullable: true, description: 'chat_id as the call gave it' })
  chat_id: string | null;

  @ApiProperty({ type: String, nullable: true })
  virtual_member_id: string | null;

  @ApiProperty({ type: 'integer', nullable: true, description: 'The message a successful send wrote' })
  message_id: number | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The parameters as given; texts are kept up to 1000 characters, with their full length',
  })
  request: Record<string, unknown>;

  @ApiProperty({ format: 'date-time' })
  created_at: string;
}

export class VirtualMemberAuditPage extends PageOf(VirtualMemberAuditView) {}

export function auditView(row: VirtualMemberAuditRow): VirtualMemberAuditView {
  return {
    id: String(row.id),
    bot_id: row.bot_id,
    action: row.action,
    outcome: row.outcome,
    error_code: row.error_code,
    chat_id: row.chat_id,
    virtual_member_id: row.virtual_member_id,
    message_id: row.message_id === null ? null : Number(row.message_id),
    request: row.request,
    created_at: row.created_at.toISOString(),
  };
}
