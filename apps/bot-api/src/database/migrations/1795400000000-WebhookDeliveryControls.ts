import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a bot's receiver and developer can now tell the dispatcher: the previous secret of a rotation
 * and when its overlap ends, the earliest next attempt a 429/503 Retry-After asked for, the run of
 * consecutive 410 Gone answers and the pause it led to, and the self-healing switch.
 */
export class WebhookDeliveryControls1795400000000 implements MigrationInterface {
  name = 'WebhookDeliveryControls1795400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE bots
        ADD COLUMN webhook_previous_secret_ciphertext text,
        ADD COLUMN webhook_previous_secret_expires_at timestamptz,
        ADD COLUMN webhook_not_before                 timestamptz,
        ADD COLUMN webhook_gone_streak                integer NOT NULL DEFAULT 0,
        ADD COLUMN webhook_paused_at                  timestamptz,
        ADD CONSTRAINT bots_webhook_previous_secret
          CHECK ((webhook_previous_secret_ciphertext IS NULL) = (webhook_previous_secret_expires_at IS NULL))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE bots
        DROP CONSTRAINT bots_webhook_previous_secret,
        DROP COLUMN webhook_previous_secret_ciphertext,
        DROP COLUMN webhook_previous_secret_expires_at,
        DROP COLUMN webhook_not_before,
        DROP COLUMN webhook_gone_streak,
        DROP COLUMN webhook_paused_at`);
  }
}
