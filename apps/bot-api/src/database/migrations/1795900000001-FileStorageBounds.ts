import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What bounds stored files: a bot's quota sums its files and its pending uploads, and files that no
 * message references are purged after a retention unless another service keeps them (`kept_at`: a
 * voucher template's cover, checked through the internal route).
 */
export class FileStorageBounds1795900000001 implements MigrationInterface {
  name = 'FileStorageBounds1795900000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE files ADD COLUMN kept_at timestamptz`);
    await queryRunner.query(`CREATE INDEX files_age ON files (created_at) WHERE kept_at IS NULL`);
    await queryRunner.query(
      `CREATE INDEX file_uploads_bot_pending ON file_uploads (bot_id) WHERE completed_at IS NULL AND bot_id IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX file_uploads_bot_pending`);
    await queryRunner.query(`DROP INDEX files_age`);
    await queryRunner.query(`ALTER TABLE files DROP COLUMN kept_at`);
  }
}
