import { queueSchemaMigration } from '@app/coordination';

/**
 * BullMQ's tables for the PostgreSQL-only mode (schema `bullmq`), created by BullMQ's own migrator.
 * Created in Redis mode too, so that switching modes needs no migration step.
 */
export const CreateQueueSchema1795800000000 = queueSchemaMigration('CreateQueueSchema1795800000000');
