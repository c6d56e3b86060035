import { CreateIdempotencyKeys1763683200000 } from '@app/idempotency';
import { CreateUsers1763683300000 } from './1763683300000-CreateUsers';
import { CreateVoucherRuntime1763683500000 } from './1763683500000-CreateVoucherRuntime';
import { CreateAllocations1763683900000 } from './1763683900000-CreateAllocations';
import { CountIssuesAtCommit1763684100000 } from './1763684100000-CountIssuesAtCommit';
import { CreateSealedRequestIds1764140000000 } from './1764140000000-CreateSealedRequestIds';
import { CreateQueueSchema1795800000000 } from './1795800000000-CreateQueueSchema';
import { CreateRateLimits1796000000000 } from './1796000000000-CreateRateLimits';

/** Every migration of the voucher database, in order. New migrations are appended here. */
export const voucherMigrations = [
  CreateIdempotencyKeys1763683200000,
  CreateUsers1763683300000,
  CreateVoucherRuntime1763683500000,
  CreateAllocations1763683900000,
  CountIssuesAtCommit1763684100000,
  CreateSealedRequestIds1764140000000,
  CreateQueueSchema1795800000000,
  CreateRateLimits1796000000000,
];
