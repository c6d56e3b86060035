import { PeriodicWorkModule } from '@app/coordination';
import { IdempotencyPurge } from '@app/idempotency';
import { DeliveryPartitionsTask } from './delivery-partitions/delivery-partitions-task';
import { OneTimeTokenPurgeService } from './bots/one-time-token-purge.service';
import { FileRetentionPurgeService } from './files/file-retention-purge.service';
import { FileUploadPurgeService } from './files/file-upload-purge.service';
import { QueriesPurgeService } from './interaction/queries-purge.service';
import { MessageDetectionBackfill } from './messages/message-detection-backfill.service';
import { RedriveTick } from './staff-deliveries/redrive-tick';
import { VirtualMemberAuditPurgeService } from './virtual-members/virtual-member-audit-purge.service';

/** Everything bot-api does on a timer, each run once per cluster whatever the number of replicas. */
export const botApiPeriodicWork = () =>
  PeriodicWorkModule.forRoot({
    queue: 'bot-api-periodic',
    tasks: {
      'queries-purge': QueriesPurgeService,
      'one-time-token-purge': OneTimeTokenPurgeService,
      'file-upload-purge': FileUploadPurgeService,
      'idempotency-purge': IdempotencyPurge,
      'redrive-tick': RedriveTick,
      'file-retention-purge': FileRetentionPurgeService,
      'virtual-member-audit-purge': VirtualMemberAuditPurgeService,
      'message-detection-backfill': MessageDetectionBackfill,
      'delivery-partitions': DeliveryPartitionsTask,
    },
  });
