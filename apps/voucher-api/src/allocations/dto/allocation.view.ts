import type { Allocation } from '../entities/allocation.entity';

/** Spec 2.7 names the record's fields in camelCase; the extra identifiers follow the same casing. */
export interface AllocationView {
  id: string;
  applicationId: string;
  templateId: string;
  recipientUserId: string;
  quantity: number;
  remaining: number;
  sendingCount: number;
  claimedCount: number;
  status: Allocation['status'];
  createdAt: string;
  updatedAt: string;
}

export interface AllocationPage {
  items: AllocationView[];
  page: number;
  limit: number;
  total: number;
}

export function toAllocationView(allocation: Allocation): AllocationView {
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
