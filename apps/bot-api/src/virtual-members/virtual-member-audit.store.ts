import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

export type VirtualMemberAction = 'create' | 'list' | 'send';

export interface VirtualMemberAuditEntry {
  botId: string;
  action: VirtualMemberAction;
  outcome: 'succeeded' | 'refused';
  errorCode?: string | null;
  chatId?: string | null;
  virtualMemberId?: string | null;
  messageId?: number | null;
  /** The call's parameters as given (texts cut to their first characters). */
  request: Record<string, unknown>;
}

export interface VirtualMemberAuditRow {
  id: string;
  bot_id: string;
  action: VirtualMemberAction;
  outcome: 'succeeded' | 'refused';
  error_code: string | null;
  chat_id: string | null;
  virtual_member_id: string | null;
  message_id: string | null;
  request: Record<string, unknown>;
  created_at: Date;
}

/** The audit log of every virtual-member call, refused ones included; read by platform staff. */
@Injectable()
export class VirtualMemberAuditStore {
  async record(manager: EntityManager, entry: VirtualMemberAuditEntry): Promise<void> {
    await manager.query(
      `INSERT INTO virtual_member_audit_log
         (bot_id, action, outcome, error_code, chat_id, virtual_member_id, message_id, request)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
      [
        entry.botId,
        entry.action,
        entry.outcome,
        entry.errorCode ?? null,
        entry.chatId ?? null,
        entry.virtualMemberId ?? null,
        entry.messageId ?? null,
        JSON.stringify(entry.request),
      ],
    );
  }

  /** One page of the bot's entries, newest first, with how many there are. */
  async page(
    manager: EntityManager,
    botId: string,
    offset: number,
    limit: number,
  ): Promise<[VirtualMemberAuditRow[], number]> {
    const rows: VirtualMemberAuditRow[] = await manager.query(
      `SELECT id, bot_id, action, outcome, error_code, chat_id, virtual_member_id, message_id, request, created_at
         FROM virtual_member_audit_log WHERE bot_id = $1
        ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT $3`,
      [botId, offset, limit],
    );
    const counted: Array<{ n: string }> = await manager.query(
      `SELECT count(*) AS n FROM virtual_member_audit_log WHERE bot_id = $1`,
      [botId],
    );
    return [rows, Number(counted[0].n)];
  }

  /** Removes the entries older than `days`; answers how many. */
  async purgeOlderThan(manager: EntityManager, days: number): Promise<number> {
    const [, deleted]: [unknown, number] = await manager.query(
      `DELETE FROM virtual_member_audit_log WHERE created_at < now() - make_interval(days => $1)`,
      [days],
    );
    return deleted;
  }
}
