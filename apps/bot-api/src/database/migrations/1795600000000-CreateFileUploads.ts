import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pending uploads (step 1 of the upload until complete): who asked, under which storage key, what
 * they declared and until when the upload URL is valid. Completed files stay in `files`; a storage
 * key becomes a file at most once.
 */
export class CreateFileUploads1795600000000 implements MigrationInterface {
  name = 'CreateFileUploads1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE file_uploads (
        id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        storage_key   varchar(512) NOT NULL UNIQUE,
        bot_id        varchar(24)  REFERENCES bots (id) ON DELETE CASCADE,
        user_id       varchar(128) REFERENCES users (id),
        file_name     varchar(255) NOT NULL,
        file_size     bigint       NOT NULL CHECK (file_size > 0),
        mime_type     varchar(255) NOT NULL,
        expires_at    timestamptz  NOT NULL,
        uploaded_at   timestamptz,
        completed_at  timestamptz,
        created_at    timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT file_uploads_one_owner CHECK ((bot_id IS NULL) <> (user_id IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX file_uploads_expiry ON file_uploads (expires_at)`);
    await queryRunner.query(`CREATE UNIQUE INDEX files_storage_key ON files (storage_key)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX files_storage_key`);
    await queryRunner.query(`DROP TABLE file_uploads`);
  }
}
