import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The ids of sealed calls seen within their freshness window, shared by every replica so a captured
 * seal cannot be replayed against another one. A row is useless once `expires_at` has passed (the seal
 * is refused as too old by then), which is when the purge may take it.
 */
export class CreateSealedRequestIds1764140000000 implements MigrationInterface {
  name = 'CreateSealedRequestIds1764140000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE sealed_request_ids (
        seal_id text PRIMARY KEY,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX sealed_request_ids_expires_at ON sealed_request_ids (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE sealed_request_ids`);
  }
}
