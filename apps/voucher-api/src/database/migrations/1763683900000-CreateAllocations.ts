import { MigrationInterface, QueryRunner } from 'typeorm';

/** Console bot bindings, stock allocations to senders and their sends; links a claimed voucher to its send. */
export class CreateAllocations1763683900000 implements MigrationInterface {
  name = 'CreateAllocations1763683900000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE bot_bindings (
        application_id uuid        NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        bot_id         char(24)    NOT NULL CHECK (bot_id ~ '^[0-9a-f]{24}$'),
        created_at     timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (application_id, bot_id)
      )`);
    await queryRunner.query(`CREATE INDEX bot_bindings_bot_id ON bot_bindings (bot_id)`);

    // The counters always add up to the quantity, and the status follows from them: the database,
    // not the code, guarantees that a send or a claim can never create or lose a unit.
    await queryRunner.query(`
      CREATE TABLE allocations (
        id             uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        application_id uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        template_id    uuid         NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
        sender_user_id varchar(128) NOT NULL REFERENCES users (id),
        created_by     varchar(128) NOT NULL,
        quantity       integer      NOT NULL CHECK (quantity BETWEEN 1 AND 10000),
        remaining      integer      NOT NULL CHECK (remaining >= 0),
        sending_count  integer      NOT NULL DEFAULT 0 CHECK (sending_count >= 0),
        claimed_count  integer      NOT NULL DEFAULT 0 CHECK (claimed_count >= 0),
        status         varchar(16)  GENERATED ALWAYS AS (
                         CASE WHEN remaining = 0 AND sending_count = 0 THEN 'exhausted' ELSE 'active' END
                       ) STORED,
        created_at     timestamptz  NOT NULL DEFAULT now(),
        updated_at     timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT allocations_units_balance CHECK (remaining + sending_count + claimed_count = quantity)
      )`);
    await queryRunner.query(
      `CREATE INDEX allocations_application_created ON allocations (application_id, created_at DESC, id DESC)`,
    );
    await queryRunner.query(`CREATE INDEX allocations_template ON allocations (template_id)`);
    await queryRunner.query(`CREATE INDEX allocations_sender_created ON allocations (sender_user_id, created_at DESC)`);

    await queryRunner.query(`
      CREATE TABLE sends (
        id                uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        allocation_id     uuid         NOT NULL REFERENCES allocations (id) ON DELETE CASCADE,
        sender_user_id    varchar(128) NOT NULL REFERENCES users (id),
        recipient_user_id varchar(128) NOT NULL REFERENCES users (id),
        status            varchar(16)  NOT NULL DEFAULT 'sending'
                          CHECK (status IN ('sending', 'claimed', 'cancelled')),
        voucher_id        uuid         REFERENCES vouchers (id) ON DELETE CASCADE,
        claimed_at        timestamptz,
        cancelled_at      timestamptz,
        created_at        timestamptz  NOT NULL DEFAULT now(),
        updated_at        timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT sends_claimed_has_voucher CHECK ((status = 'claimed') = (voucher_id IS NOT NULL))
      )`);
    await queryRunner.query(`CREATE INDEX sends_allocation ON sends (allocation_id)`);
    await queryRunner.query(`CREATE INDEX sends_recipient_created ON sends (recipient_user_id, created_at DESC)`);
    await queryRunner.query(`CREATE INDEX sends_sender_created ON sends (sender_user_id, created_at DESC)`);

    // Unique: however many claims race, a send yields at most one voucher.
    await queryRunner.query(`ALTER TABLE vouchers ADD COLUMN send_id uuid REFERENCES sends (id) ON DELETE SET NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX vouchers_send_id ON vouchers (send_id) WHERE send_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX vouchers_send_id`);
    await queryRunner.query(`ALTER TABLE vouchers DROP COLUMN send_id`);
    await queryRunner.query(`DROP TABLE sends`);
    await queryRunner.query(`DROP TABLE allocations`);
    await queryRunner.query(`DROP TABLE bot_bindings`);
  }
}
