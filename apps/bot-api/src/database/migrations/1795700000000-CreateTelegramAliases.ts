import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Integer aliases of chat uuids and user ids for the Telegram-compatible face, whose wire protocol
 * has integer ids. An alias is given the first time a chat or user is shown there and never changes.
 */
export class CreateTelegramAliases1795700000000 implements MigrationInterface {
  name = 'CreateTelegramAliases1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE telegram_aliases (
        alias      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        kind       varchar(8)   NOT NULL CHECK (kind IN ('chat', 'user')),
        native_id  varchar(128) NOT NULL,
        created_at timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT telegram_aliases_native UNIQUE (kind, native_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE telegram_aliases`);
  }
}
