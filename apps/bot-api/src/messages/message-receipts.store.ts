import { Injectable } from '@nestjs/common';
import { db } from '@app/bot-schema';
import { executeFirst, SqlTarget } from '@app/platform';

/** Every statement on message_receipts: a reader's "read" and "delivered" marks, each given once. */
@Injectable()
export class MessageReceiptsStore {
  /** The receipt's time, or null when the user had already given this receipt. */
  async add(on: SqlTarget, messageId: number, userId: string, kind: 'read' | 'delivered'): Promise<Date | null> {
    const row = await executeFirst(
      on,
      db
        .insertInto('message_receipts')
        .values({ message_id: messageId, user_id: userId, kind })
        .onConflict((conflict) => conflict.doNothing())
        .returning('created_at'),
    );
    return row?.created_at ?? null;
  }
}
