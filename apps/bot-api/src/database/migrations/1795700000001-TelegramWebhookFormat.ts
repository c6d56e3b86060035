import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Which body a bot's webhook receives: the native Update, or Telegram's Update for a webhook set
 * through the Telegram-compatible face. deleteWebhook and a native setWebhook go back to native.
 */
export class TelegramWebhookFormat1795700000001 implements MigrationInterface {
  name = 'TelegramWebhookFormat1795700000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE bots ADD COLUMN webhook_format varchar(16) NOT NULL DEFAULT 'native'
         CONSTRAINT bots_webhook_format CHECK (webhook_format IN ('native', 'telegram'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE bots DROP COLUMN webhook_format`);
  }
}
