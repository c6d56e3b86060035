import type { Send } from '../../allocations/entities/send.entity';

export interface SendView {
  id: string;
  allocation_id: string;
  sender_user_id: string;
  recipient_user_id: string;
  status: Send['status'];
  voucher_id: string | null;
  created_at: string;
  claimed_at: string | null;
  cancelled_at: string | null;
}

/** A send as its recipient sees it in the inbox: what is offered and by whom. */
export interface InboxItemView extends SendView {
  sender_name: string;
  application_id: string;
  application_name: string;
  template: { id: string; name: string; type: string; issuer_name: string };
}

export function toSendView(send: Send): SendView {
  return {
    id: send.id,
    allocation_id: send.allocationId,
    sender_user_id: send.senderUserId,
    recipient_user_id: send.recipientUserId,
    status: send.status,
    voucher_id: send.voucherId,
    created_at: send.createdAt.toISOString(),
    claimed_at: send.claimedAt?.toISOString() ?? null,
    cancelled_at: send.cancelledAt?.toISOString() ?? null,
  };
}
