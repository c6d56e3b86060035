import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Button clicks and inline queries with their one answer each, the virtual members a bot speaks as in
 * a group (directory entries marked is_virtual, owned by the bot that created them) and the audit log
 * of every virtual-member call.
 */
export class CreateInteraction1795610000000 implements MigrationInterface {
  name = 'CreateInteraction1795610000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE callback_queries (
        id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        bot_id       varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        user_id      varchar(128) NOT NULL REFERENCES users (id),
        chat_id      uuid         NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        message_id   bigint       NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        data         varchar(64)  NOT NULL,
        created_at   timestamptz  NOT NULL DEFAULT now(),
        expires_at   timestamptz  NOT NULL,
        answered_at  timestamptz,
        answer       jsonb,
        CONSTRAINT callback_queries_answered CHECK ((answered_at IS NULL) = (answer IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX callback_queries_created ON callback_queries (created_at)`);

    await queryRunner.query(`
      CREATE TABLE inline_queries (
        id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        bot_id       varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        user_id      varchar(128) NOT NULL REFERENCES users (id),
        query        varchar(256) NOT NULL,
        "offset"     varchar(64)  NOT NULL,
        created_at   timestamptz  NOT NULL DEFAULT now(),
        expires_at   timestamptz  NOT NULL,
        answered_at  timestamptz,
        answer       jsonb,
        CONSTRAINT inline_queries_answered CHECK ((answered_at IS NULL) = (answer IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX inline_queries_created ON inline_queries (created_at)`);

    await queryRunner.query(`ALTER TABLE users ADD COLUMN is_virtual boolean NOT NULL DEFAULT false`);
    await queryRunner.query(`
      CREATE TABLE virtual_members (
        user_id     varchar(128) PRIMARY KEY REFERENCES users (id),
        chat_id     uuid         NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        bot_id      varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        created_at  timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX virtual_members_chat_bot ON virtual_members (chat_id, bot_id, created_at)`);

    // No foreign keys: the log outlives what it names, and refused calls name ids that may not exist.
    await queryRunner.query(`
      CREATE TABLE virtual_member_audit_log (
        id                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        bot_id             varchar(24)  NOT NULL,
        action             varchar(32)  NOT NULL CHECK (action IN ('create', 'list', 'send')),
        outcome            varchar(16)  NOT NULL CHECK (outcome IN ('succeeded', 'refused')),
        error_code         varchar(64),
        chat_id            text,
        virtual_member_id  text,
        message_id         bigint,
        request            jsonb        NOT NULL,
        created_at         timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE INDEX virtual_member_audit_log_bot ON virtual_member_audit_log (bot_id, created_at DESC, id DESC)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE virtual_member_audit_log`);
    await queryRunner.query(`DROP TABLE virtual_members`);
    await queryRunner.query(`ALTER TABLE users DROP COLUMN is_virtual`);
    await queryRunner.query(`DROP TABLE inline_queries`);
    await queryRunner.query(`DROP TABLE callback_queries`);
  }
}
