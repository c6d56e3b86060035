import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateBots1763683400000 implements MigrationInterface {
  name = 'CreateBots1763683400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // System users of bots live in the same directory as people, so chats reference one kind of member.
    await queryRunner.query(`
      ALTER TABLE users
        ADD COLUMN is_bot   boolean     NOT NULL DEFAULT false,
        ADD COLUMN username varchar(64)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX users_username_lower ON users (lower(username)) WHERE username IS NOT NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE bots (
        id                        varchar(24)  PRIMARY KEY CHECK (id ~ '^[0-9a-f]{24}$'),
        owner_id                  varchar(128) NOT NULL,
        name                      varchar(100) NOT NULL,
        username                  varchar(64),
        description               text,
        short_description         varchar(120),
        avatar                    text,
        scopes                    text[]       NOT NULL DEFAULT ARRAY['messages:send','messages:receive'],
        review_status             varchar(16)  NOT NULL DEFAULT 'pending'
                                  CHECK (review_status IN ('pending', 'approved', 'rejected')),
        rejection_reason          text,
        reviewed_by               varchar(128),
        reviewed_at               timestamptz,
        status                    varchar(16)  NOT NULL DEFAULT 'disabled' CHECK (status IN ('enabled', 'disabled')),
        system_user_id            varchar(128) UNIQUE REFERENCES users (id),
        delivery_mode             varchar(16)  NOT NULL DEFAULT 'polling' CHECK (delivery_mode IN ('webhook', 'polling')),
        allowed_updates           text[],
        supports_inline_queries   boolean      NOT NULL DEFAULT false,
        friend_request_mode       varchar(16)  NOT NULL DEFAULT 'auto_accept'
                                  CHECK (friend_request_mode IN ('auto_accept', 'auto_reject', 'manual')),
        rate_limits               jsonb        NOT NULL DEFAULT '{}'::jsonb,
        virtual_members_enabled   boolean      NOT NULL DEFAULT false,
        token_hash                char(64)     UNIQUE,
        token_prefix              varchar(16),
        token_issued_at           timestamptz,
        token_revoked_at          timestamptz,
        one_time_token_ciphertext text,
        one_time_token_expires_at timestamptz,
        created_at                timestamptz  NOT NULL DEFAULT now(),
        updated_at                timestamptz  NOT NULL DEFAULT now()
      )`);
    // A rejected application releases its username so the developer can apply again with it.
    await queryRunner.query(
      `CREATE UNIQUE INDEX bots_username_lower ON bots (lower(username))
        WHERE username IS NOT NULL AND review_status <> 'rejected'`,
    );
    await queryRunner.query(`CREATE INDEX bots_owner ON bots (owner_id, created_at)`);
    await queryRunner.query(`CREATE INDEX bots_review_queue ON bots (review_status, created_at)`);

    await queryRunner.query(`
      CREATE TABLE bot_commands (
        bot_id        varchar(24) NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        scope_key     varchar(200) NOT NULL,
        language_code varchar(8)  NOT NULL DEFAULT '',
        scope         jsonb       NOT NULL,
        commands      jsonb       NOT NULL,
        updated_at    timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (bot_id, scope_key, language_code)
      )`);

    await queryRunner.query(`
      CREATE TABLE bot_friends (
        bot_id     varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        user_id    varchar(128) NOT NULL REFERENCES users (id),
        created_at timestamptz  NOT NULL DEFAULT now(),
        PRIMARY KEY (bot_id, user_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE friend_requests (
        id          uuid         PRIMARY KEY,
        bot_id      varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        user_id     varchar(128) NOT NULL REFERENCES users (id),
        message     varchar(500),
        source      varchar(32)  NOT NULL DEFAULT 'client',
        status      varchar(16)  NOT NULL CHECK (status IN ('pending', 'accepted', 'rejected')),
        created_at  timestamptz  NOT NULL DEFAULT now(),
        answered_at timestamptz
      )`);
    // At most one open request per pair: concurrent sends race on this index, not on a read.
    await queryRunner.query(
      `CREATE UNIQUE INDEX friend_requests_one_pending ON friend_requests (bot_id, user_id) WHERE status = 'pending'`,
    );
    await queryRunner.query(`CREATE INDEX friend_requests_bot_status ON friend_requests (bot_id, status, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE friend_requests`);
    await queryRunner.query(`DROP TABLE bot_friends`);
    await queryRunner.query(`DROP TABLE bot_commands`);
    await queryRunner.query(`DROP TABLE bots`);
    await queryRunner.query(`DROP INDEX users_username_lower`);
    await queryRunner.query(`ALTER TABLE users DROP COLUMN username, DROP COLUMN is_bot`);
  }
}
