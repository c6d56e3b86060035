import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A voucher issued directly (not claimed from a send, whose stock the allocation already took) counts
 * in its template's issued_count at COMMIT, from a deferred trigger. The template row is then locked
 * only for the last moment of the issuing transaction, inside the database, instead of from a
 * mid-transaction UPDATE until the application gets round to committing; concurrent issues of one
 * template no longer queue behind each other's round trips. An overdraw still fails, at commit, on the
 * templates_stock_within_limit check, and rolls the whole issue back.
 */
export class CountIssuesAtCommit1763684100000 implements MigrationInterface {
  name = 'CountIssuesAtCommit1763684100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION count_direct_issue() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE templates SET issued_count = issued_count + 1, updated_at = now() WHERE id = NEW.template_id;
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE CONSTRAINT TRIGGER vouchers_count_direct_issue
        AFTER INSERT ON vouchers DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW WHEN (NEW.send_id IS NULL) EXECUTE FUNCTION count_direct_issue()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER vouchers_count_direct_issue ON vouchers`);
    await queryRunner.query(`DROP FUNCTION count_direct_issue()`);
  }
}
