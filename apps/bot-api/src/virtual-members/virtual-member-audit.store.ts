import { Injectable } from '@nestjs/common';
import { db, type VirtualMemberAuditLog } from '@app/bot-schema';
import { execute, executeAll, executeFirst, SqlTarget } from '@app/platform';
import { sql, type Selectable } from 'kysely';

export type VirtualMemberAction = VirtualMemberAuditLog['action'];

export interface VirtualMemberAuditEntry {
  botId: string;
  action: VirtualMemberAction;
  outcome: VirtualMemberAuditLog['outcome'];
  errorCode?: string | null;
  chatId?: string | null;
  virtualMemberId?: string | null;
  messageId?: number | null;
  /** The call's parameters as given (texts cut to their first characters). */
  request: Record<string, unknown>;
}

export type VirtualMemberAuditRow = Omit<Selectable<VirtualMemberAuditLog>, 'request'> & {
  request: Record<string, unknown>;
};

/** The audit log of every virtual-member call, refused ones included; read by platform staff. */
@Injectable()
export class VirtualMemberAuditStore {
  async record(on: SqlTarget, entry: VirtualMemberAuditEntry): Promise<void> {
    await execute(
      on,
      db.insertInto('virtual_member_audit_log').values({
        bot_id: entry.botId,
        action: entry.action,
        outcome: entry.outcome,
        error_code: entry.errorCode ?? null,
        chat_id: entry.chatId ?? null,
        virtual_member_id: entry.virtualMemberId ?? null,
        message_id: entry.messageId ?? null,
        request: sql<string>`${JSON.stringify(entry.request)}::jsonb`,
      }),
    );
  }

  /** One page of the bot's entries, newest first, with how many there are. */
  async page(on: SqlTarget, botId: string, offset: number, limit: number): Promise<[VirtualMemberAuditRow[], number]> {
    const ofTheBot = db.selectFrom('virtual_member_audit_log').where('bot_id', '=', botId);
    const rows = await executeAll(
      on,
      ofTheBot
        .select((eb) => [
          'id',
          'bot_id',
          'action',
          'outcome',
          'error_code',
          'chat_id',
          'virtual_member_id',
          'message_id',
          eb.ref('request').$castTo<Record<string, unknown>>().as('request'),
          'created_at',
        ])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .offset(offset)
        .limit(limit),
    );
    const counted = await executeFirst(
      on,
      ofTheBot.select((eb) => eb.fn.countAll<string>().as('n')),
    );
    return [rows, Number(counted!.n)];
  }

  /** Removes the entries older than `days`; answers how many. */
  async purgeOlderThan(on: SqlTarget, days: number): Promise<number> {
    const result = await execute(
      on,
      db
        .deleteFrom('virtual_member_audit_log')
        .where('created_at', '<', sql<Date>`now() - make_interval(days => ${days})`),
    );
    return result.rowCount ?? 0;
  }
}
