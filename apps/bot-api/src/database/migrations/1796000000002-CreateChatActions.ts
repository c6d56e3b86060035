import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Chat actions ("typing…") of the PostgreSQL-only mode (Redis mode keeps them in Redis). A row lives a
 * few seconds: readers skip expired rows, writers sweep them. UNLOGGED: a crash loses at most a label.
 */
export class CreateChatActions1796000000002 implements MigrationInterface {
  name = 'CreateChatActions1796000000002';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE UNLOGGED TABLE chat_actions (
        chat_id    uuid         NOT NULL,
        user_id    varchar(128) NOT NULL,
        action     varchar(32)  NOT NULL,
        expires_at timestamptz  NOT NULL,
        PRIMARY KEY (chat_id, user_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE chat_actions`);
  }
}
