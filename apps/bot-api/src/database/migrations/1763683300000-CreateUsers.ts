import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateUsers1763683300000 implements MigrationInterface {
  name = 'CreateUsers1763683300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id         varchar(128) PRIMARY KEY,
        name       varchar(200) NOT NULL,
        created_at timestamptz  NOT NULL DEFAULT now(),
        updated_at timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX users_name_lower ON users (lower(name))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE users`);
  }
}
