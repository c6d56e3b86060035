import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The formatting entities of a message's text or caption (bold, links, code, …; UTF-16 offsets), as
 * given or parsed from parse_mode markup. Commands, mentions, hashtags, URLs and e-mails are found in
 * the text on every read and are not stored.
 */
export class MessageEntities1795826000000 implements MigrationInterface {
  name = 'MessageEntities1795826000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE messages ADD COLUMN entities jsonb NOT NULL DEFAULT '[]'
         CONSTRAINT messages_entities_array CHECK (jsonb_typeof(entities) = 'array')`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE messages DROP COLUMN entities`);
  }
}
