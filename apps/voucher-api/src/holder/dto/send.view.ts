import { ApiProperty, PickType } from '@nestjs/swagger';
import { AllocationView } from '../../allocations/dto/allocation.view';
import { SEND_STATUSES, type SendStatus } from '../../allocations/entities/send.entity';
import type { SendRecord } from '../../allocations/sends.store';
import { PageOf } from '@app/platform';
import { TemplateView } from '../../templates/template.view';
import { VoucherView } from '../../vouchers/voucher.view';

/** One unit of an allocation on its way from the sender to a recipient. */
export class SendView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  allocation_id: string;

  @ApiProperty()
  sender_user_id: string;

  @ApiProperty()
  recipient_user_id: string;

  @ApiProperty({
    enum: SEND_STATUSES,
    description:
      '`sending`: waiting for the recipient (its unit left the allocation’s `remaining`); `claimed`: the recipient ' +
      'claimed it and `voucher_id` is their voucher (final); `cancelled`: the sender took it back and the unit ' +
      'returned to `remaining` (final). Only `sending` can be claimed or cancelled',
  })
  status: SendStatus;

  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'The voucher its claim created' })
  voucher_id: string | null;

  @ApiProperty({ format: 'date-time' })
  created_at: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  claimed_at: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  cancelled_at: string | null;
}

/** What a send offers: its template. */
export class SendTemplateView extends PickType(TemplateView, ['id', 'name', 'type', 'issuer_name'] as const) {}

/** A send as its recipient sees it in the inbox: what is offered and by whom. */
export class InboxItemView extends SendView {
  @ApiProperty({ description: 'The display name of the sender' })
  sender_name: string;

  @ApiProperty({ format: 'uuid' })
  application_id: string;

  @ApiProperty()
  application_name: string;

  @ApiProperty({ type: SendTemplateView })
  template: SendTemplateView;
}

/** The template of an allocation in the backpack, with its state (a send needs it active). */
export class BackpackTemplateView extends PickType(TemplateView, [
  'id',
  'name',
  'type',
  'issuer_name',
  'status',
] as const) {}

/** An allocation in the sender's backpack: what it hands out and on behalf of which application. */
export class BackpackItemView extends AllocationView {
  @ApiProperty()
  application_name: string;

  @ApiProperty({ type: BackpackTemplateView })
  template: BackpackTemplateView;
}

/** A claimed send and the voucher it created for the recipient (its credentials: GET /holder/vouchers). */
export class ClaimResult {
  @ApiProperty({ type: SendView, description: 'The send, now claimed' })
  send: SendView;

  @ApiProperty({ type: VoucherView })
  voucher: VoucherView;
}

export class InboxPage extends PageOf(InboxItemView) {}

export class BackpackPage extends PageOf(BackpackItemView) {}

export function toSendView(send: SendRecord): SendView {
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
