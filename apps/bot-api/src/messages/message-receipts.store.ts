import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** Every statement on message_receipts: a reader's "read" and "delivered" marks, each given once. */
@Injectable()
export class MessageReceiptsStore {
  /** The receipt's time, or null when the user had already given this receipt. */
  async add(
    manager: EntityManager,
    messageId: number,
    userId: string,
    kind: 'read' | 'delivered',
  ): Promise<Date | null> {
    const rows: Array<{ created_at: Date }> = await manager.query(
      `INSERT INTO message_receipts (message_id, user_id, kind) VALUES ($1, $2, $3)
       ON CONFLICT DO NOTHING RETURNING created_at`,
      [messageId, userId, kind],
    );
    return rows[0]?.created_at ?? null;
  }
}
