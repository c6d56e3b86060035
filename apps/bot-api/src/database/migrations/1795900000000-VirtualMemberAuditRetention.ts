import { MigrationInterface, QueryRunner } from 'typeorm';

/** The hourly purge of virtual-member audit entries past their retention finds them by age. */
export class VirtualMemberAuditRetention1795900000000 implements MigrationInterface {
  name = 'VirtualMemberAuditRetention1795900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX virtual_member_audit_log_age ON virtual_member_audit_log (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX virtual_member_audit_log_age`);
  }
}
