import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The commands, mentions, hashtags, URLs and e-mails of a message's text, found once when the text is
 * written instead of on every read (a hostile text made each read cost seconds), with the md5 of the
 * text they were found in. Expand only: two nullable columns without a default change no row, so the
 * table is not rewritten, and the previous release, which neither reads nor writes them, keeps
 * working beside this one. Rows written before, or by that release during a rollout, have none until
 * the periodic backfill finds them (MessageDetectionBackfill).
 *
 * A writer that changes `text` without writing a new fingerprint is one that did not detect (the
 * previous release, during a rollout or after a rollback): the trigger drops what was found in the old
 * text, so the backfill finds the new one and no reader is shown entities of a text that is gone.
 */
export class MessageDetectedEntities1796200000000 implements MigrationInterface {
  name = 'MessageDetectedEntities1796200000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // A busy table must not queue every query behind this migration's lock: fail and retry instead.
    await queryRunner.query(`SET LOCAL lock_timeout = '5s'`);
    await queryRunner.query(
      `ALTER TABLE messages ADD COLUMN detected_entities jsonb, ADD COLUMN detected_text_md5 uuid`,
    );
    // NOT VALID: checked for every row written from now on, without reading the existing ones.
    await queryRunner.query(
      `ALTER TABLE messages ADD CONSTRAINT messages_detected_entities_array
         CHECK (jsonb_typeof(detected_entities) = 'array') NOT VALID`,
    );
    await queryRunner.query(`
      CREATE FUNCTION messages_detection_stale() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.detected_entities := NULL;
        NEW.detected_text_md5 := NULL;
        RETURN NEW;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER messages_detection_stale BEFORE UPDATE OF text ON messages
        FOR EACH ROW
        WHEN (NEW.text IS DISTINCT FROM OLD.text AND NEW.detected_text_md5 IS NOT DISTINCT FROM OLD.detected_text_md5)
        EXECUTE FUNCTION messages_detection_stale()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '5s'`);
    await queryRunner.query(`DROP TRIGGER messages_detection_stale ON messages`);
    await queryRunner.query(`DROP FUNCTION messages_detection_stale()`);
    await queryRunner.query(
      `ALTER TABLE messages DROP CONSTRAINT messages_detected_entities_array,
         DROP COLUMN detected_text_md5, DROP COLUMN detected_entities`,
    );
  }
}
