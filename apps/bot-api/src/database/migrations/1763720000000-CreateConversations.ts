import { MigrationInterface, QueryRunner } from 'typeorm';

/** Chats, members, messages, files and the Update outbox that bots read with getUpdates. */
export class CreateConversations1763720000000 implements MigrationInterface {
  name = 'CreateConversations1763720000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE files (
        id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        bot_id       varchar(24) REFERENCES bots (id) ON DELETE CASCADE,
        user_id      varchar(128) REFERENCES users (id),
        file_name    varchar(255) NOT NULL,
        mime_type    varchar(255) NOT NULL,
        file_size    bigint       NOT NULL CHECK (file_size >= 0),
        width        integer,
        height       integer,
        duration     integer,
        storage_key  varchar(512) NOT NULL,
        created_at   timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT files_one_owner CHECK ((bot_id IS NULL) <> (user_id IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX files_bot ON files (bot_id) WHERE bot_id IS NOT NULL`);

    await queryRunner.query(`
      CREATE TABLE chats (
        id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        type               varchar(16)  NOT NULL CHECK (type IN ('private', 'group')),
        title              varchar(255),
        description        text,
        photo_url          varchar(2048),
        pinned_message_id  bigint,
        private_key        varchar(300) UNIQUE,
        created_by         varchar(128) NOT NULL REFERENCES users (id),
        created_at         timestamptz  NOT NULL DEFAULT now(),
        updated_at         timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT chats_private_key CHECK ((type = 'private') = (private_key IS NOT NULL))
      )`);

    await queryRunner.query(`
      CREATE TABLE chat_members (
        chat_id     uuid         NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        user_id     varchar(128) NOT NULL REFERENCES users (id),
        rank        varchar(16)  NOT NULL CHECK (rank IN ('owner', 'administrator', 'member')),
        state       varchar(16)  NOT NULL CHECK (state IN ('active', 'left', 'kicked', 'banned')),
        ban_reason  varchar(500),
        joined_at   timestamptz  NOT NULL DEFAULT now(),
        updated_at  timestamptz  NOT NULL DEFAULT now(),
        PRIMARY KEY (chat_id, user_id)
      )`);
    await queryRunner.query(`CREATE INDEX chat_members_user ON chat_members (user_id) WHERE state = 'active'`);
    // At most one owner per chat, enforced by the database rather than by read-then-write checks.
    await queryRunner.query(
      `CREATE UNIQUE INDEX chat_members_one_owner ON chat_members (chat_id) WHERE rank = 'owner'`,
    );

    await queryRunner.query(`
      CREATE TABLE chat_join_requests (
        id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        chat_id     uuid         NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        user_id     varchar(128) NOT NULL REFERENCES users (id),
        status      varchar(16)  NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'declined')),
        created_at  timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX chat_join_requests_one_pending ON chat_join_requests (chat_id, user_id) WHERE status = 'pending'`,
    );

    await queryRunner.query(`
      CREATE TABLE messages (
        id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        chat_id              uuid         NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
        sender_id            varchar(128) NOT NULL REFERENCES users (id),
        kind                 varchar(16)  NOT NULL,
        text                 text,
        file_id              uuid REFERENCES files (id),
        reply_to_message_id  bigint REFERENCES messages (id),
        mentions             jsonb        NOT NULL DEFAULT '[]',
        metadata             jsonb        NOT NULL DEFAULT '{}',
        reply_markup         jsonb,
        created_at           timestamptz  NOT NULL DEFAULT now(),
        edited_at            timestamptz,
        deleted_at           timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX messages_chat ON messages (chat_id, id DESC) WHERE deleted_at IS NULL`);
    await queryRunner.query(`CREATE INDEX messages_file ON messages (file_id) WHERE file_id IS NOT NULL`);
    await queryRunner.query(
      `ALTER TABLE chats ADD CONSTRAINT chats_pinned_message FOREIGN KEY (pinned_message_id) REFERENCES messages (id) ON DELETE SET NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE message_receipts (
        message_id  bigint       NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
        user_id     varchar(128) NOT NULL REFERENCES users (id),
        kind        varchar(16)  NOT NULL CHECK (kind IN ('delivered', 'read')),
        created_at  timestamptz  NOT NULL DEFAULT now(),
        PRIMARY KEY (message_id, user_id, kind)
      )`);

    await queryRunner.query(`
      CREATE TABLE updates (
        update_seq    bigserial PRIMARY KEY,
        update_id     uuid         NOT NULL UNIQUE,
        bot_id        varchar(24)  NOT NULL REFERENCES bots (id) ON DELETE CASCADE,
        type          varchar(32)  NOT NULL,
        payload       jsonb        NOT NULL,
        created_at    timestamptz  NOT NULL DEFAULT now(),
        acknowledged  boolean      NOT NULL DEFAULT false
      )`);
    await queryRunner.query(`CREATE INDEX updates_pending ON updates (bot_id, update_seq) WHERE NOT acknowledged`);
    await queryRunner.query(`CREATE INDEX updates_created ON updates (created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE updates`);
    await queryRunner.query(`DROP TABLE message_receipts`);
    await queryRunner.query(`ALTER TABLE chats DROP CONSTRAINT chats_pinned_message`);
    await queryRunner.query(`DROP TABLE messages`);
    await queryRunner.query(`DROP TABLE chat_join_requests`);
    await queryRunner.query(`DROP TABLE chat_members`);
    await queryRunner.query(`DROP TABLE chats`);
    await queryRunner.query(`DROP TABLE files`);
  }
}
