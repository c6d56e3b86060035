import { ApiProperty } from '@nestjs/swagger';
import { PageOf } from '@app/platform';
import { ALLOCATION_STATUSES, type AllocationStatus } from '../entities/allocation.entity';
import type { AllocationRecord } from '../allocations.store';

/** Spec 2.7 names the record's fields in camelCase; the extra identifiers follow the same casing. */
export class AllocationView {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid' })
  applicationId: string;

  @ApiProperty({ format: 'uuid' })
  templateId: string;

  @ApiProperty({ description: 'The sender whose backpack holds the stock' })
  recipientUserId: string;

  @ApiProperty({ type: 'integer', minimum: 1 })
  quantity: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Units not yet sent' })
  remaining: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Units sent and waiting for their claim' })
  sendingCount: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Units claimed by their recipients' })
  claimedCount: number;

  @ApiProperty({ enum: ALLOCATION_STATUSES, description: 'exhausted once every unit is claimed' })
  status: AllocationStatus;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

export class AllocationPage extends PageOf(AllocationView) {}

export function toAllocationView(allocation: AllocationRecord): AllocationView {
  return {
    id: allocation.id,
    applicationId: allocation.applicationId,
    templateId: allocation.templateId,
    recipientUserId: allocation.senderUserId,
    quantity: allocation.quantity,
    remaining: allocation.remaining,
    sendingCount: allocation.sendingCount,
    claimedCount: allocation.claimedCount,
    status: allocation.status,
    createdAt: allocation.createdAt.toISOString(),
    updatedAt: allocation.updatedAt.toISOString(),
  };
}
