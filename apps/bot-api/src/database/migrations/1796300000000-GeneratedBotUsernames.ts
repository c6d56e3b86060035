import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Approved bots that applied without a username get one, as approvals now give one: the Latin letters
 * and digits of their name, lower case, words joined by `_` (a last word `bot` dropped), then `_bot`;
 * `_2_bot` … `_20_bot` when taken, then `_<bot id>_bot` (see apps/bot-api/src/bots/generated-username.ts,
 * which this follows in SQL so that the migration stays what it was when the code changes). The bot's
 * system user carries the same username into chats. Only NULL usernames are filled, so code of the
 * previous release reads the rows as before. `down` leaves them: they are valid usernames bots may
 * already be addressed by.
 */
export class GeneratedBotUsernames1796300000000 implements MigrationInterface {
  name = 'GeneratedBotUsernames1796300000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`SET LOCAL lock_timeout = '5s'`);
    await queryRunner.query(`
      DO $$
      DECLARE
        bot record;
        stem text;
        candidate text;
        n int;
      BEGIN
        FOR bot IN SELECT id, name, system_user_id FROM bots
                    WHERE review_status = 'approved' AND username IS NULL ORDER BY created_at, id FOR UPDATE
        LOOP
          stem := regexp_replace(normalize(lower(bot.name), NFKD), '[\\u0300-\\u036f]', '', 'g');
          stem := regexp_replace(stem, '[^a-z0-9]+', '_', 'g');
          stem := regexp_replace(stem, '^[^a-z]+', '');
          stem := regexp_replace(stem, '_+$', '');
          IF stem LIKE '%\\_bot' THEN stem := regexp_replace(stem, '_bot$', ''); END IF;
          IF stem = '' THEN stem := 'bot_' || substr(bot.id, 1, 8); END IF;
          n := 1;
          LOOP
            candidate := CASE
              WHEN n = 1 THEN rtrim(left(stem, 60), '_') || '_bot'
              WHEN n <= 20 THEN rtrim(left(stem, 64 - length('_' || n || '_bot')), '_') || '_' || n || '_bot'
              ELSE rtrim(left(stem, 35), '_') || '_' || bot.id || '_bot' END;
            BEGIN
              UPDATE bots SET username = candidate, updated_at = now() WHERE id = bot.id;
              UPDATE users SET username = candidate, updated_at = now() WHERE id = bot.system_user_id;
              EXIT;
            EXCEPTION WHEN unique_violation THEN
              IF n > 20 THEN RAISE; END IF;
              n := n + 1;
            END;
          END LOOP;
        END LOOP;
      END $$`);
  }

  async down(): Promise<void> {
    // Nothing to undo: see the class comment.
  }
}
