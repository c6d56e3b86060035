import { MigrationInterface, QueryRunner } from 'typeorm';

/** Each service lists this migration so that it keeps the table in its own database. */
export class CreateIdempotencyKeys1763683200000 implements MigrationInterface {
  name = 'CreateIdempotencyKeys1763683200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE idempotency_keys (
        scope           varchar(128) NOT NULL,
        key             varchar(255) NOT NULL,
        route           varchar(300) NOT NULL,
        fingerprint     char(64)     NOT NULL,
        status          varchar(16)  NOT NULL CHECK (status IN ('in_progress', 'completed')),
        lock_token      uuid,
        locked_at       timestamptz,
        response_status integer,
        response_body   text,
        created_at      timestamptz  NOT NULL DEFAULT now(),
        expires_at      timestamptz  NOT NULL,
        PRIMARY KEY (scope, key)
      )`);
    await queryRunner.query(`CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE idempotency_keys`);
  }
}
