import { MigrationInterface, QueryRunner } from 'typeorm';

/** Applications, their tokens, holder consent, templates, vouchers, redemptions and reversals. */
export class CreateVoucherRuntime1763683500000 implements MigrationInterface {
  name = 'CreateVoucherRuntime1763683500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE applications (
        id              uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        owner_id        varchar(128) NOT NULL REFERENCES users (id),
        name            varchar(200) NOT NULL,
        description     text,
        status          varchar(16)  NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
        allowed_origins text[]       NOT NULL DEFAULT '{*}',
        features        jsonb        NOT NULL DEFAULT '{"vouchers": true}',
        created_at      timestamptz  NOT NULL DEFAULT now(),
        updated_at      timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX applications_owner ON applications (owner_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE app_tokens (
        id             uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        application_id uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        name           varchar(200) NOT NULL,
        token_hash     char(64)     NOT NULL UNIQUE,
        prefix         varchar(32)  NOT NULL,
        permissions    text[]       NOT NULL DEFAULT '{}',
        expires_at     timestamptz,
        last_used_at   timestamptz,
        revoked_at     timestamptz,
        created_at     timestamptz  NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX app_tokens_application ON app_tokens (application_id, created_at)`);

    await queryRunner.query(`
      CREATE TABLE authorizations (
        user_id        varchar(128) NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        application_id uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        created_at     timestamptz  NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, application_id)
      )`);
    await queryRunner.query(`CREATE INDEX authorizations_application ON authorizations (application_id)`);

    await queryRunner.query(`
      CREATE TABLE templates (
        id                   uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        application_id       uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        external_template_id varchar(128) NOT NULL,
        name                 varchar(200) NOT NULL,
        type                 varchar(32)  NOT NULL
          CHECK (type IN ('discount', 'cash_discount', 'gift', 'service')),
        issuer_name          varchar(200) NOT NULL,
        fulfiller_name       varchar(200) NOT NULL,
        fulfillment_category varchar(32)  NOT NULL
          CHECK (fulfillment_category IN ('physical_goods', 'offline_service', 'ecommerce_discount', 'app_credit')),
        acquisition_source   varchar(32)  NOT NULL
          CHECK (acquisition_source IN ('free', 'merchant_campaign', 'platform_campaign')),
        valid_from           timestamptz,
        valid_to             timestamptz,
        days_after_claim     integer CHECK (days_after_claim BETWEEN 1 AND 3650),
        issue_limit          integer      NOT NULL CHECK (issue_limit >= 0),
        per_user_limit       integer      NOT NULL DEFAULT 1 CHECK (per_user_limit BETWEEN 1 AND 100),
        description          text,
        cover_file_id        varchar(128),
        usage_rules          jsonb,
        fulfillment          jsonb,
        terms                jsonb,
        status               varchar(16)  NOT NULL DEFAULT 'draft'
          CHECK (status IN ('draft', 'reviewing', 'active', 'rejected', 'paused', 'ended', 'archived')),
        issued_count         integer      NOT NULL DEFAULT 0 CHECK (issued_count >= 0),
        allocated_count      integer      NOT NULL DEFAULT 0 CHECK (allocated_count >= 0),
        rejection_reason     text,
        submitted_at         timestamptz,
        reviewed_at          timestamptz,
        created_at           timestamptz  NOT NULL DEFAULT now(),
        updated_at           timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT templates_external_id_unique UNIQUE (application_id, external_template_id),
        CONSTRAINT templates_validity_kind CHECK (
          (days_after_claim IS NULL AND valid_from IS NOT NULL AND valid_to IS NOT NULL AND valid_from < valid_to)
          OR (days_after_claim IS NOT NULL AND valid_from IS NULL AND valid_to IS NULL)),
        CONSTRAINT templates_stock_within_limit CHECK (
          issue_limit = 0 OR issued_count + allocated_count <= issue_limit)
      )`);
    await queryRunner.query(`CREATE INDEX templates_application ON templates (application_id, created_at)`);
    await queryRunner.query(`CREATE INDEX templates_status ON templates (status, submitted_at)`);

    // One row per (template, user): the conditional upsert on it enforces per_user_limit under concurrency.
    await queryRunner.query(`
      CREATE TABLE template_user_issues (
        template_id  uuid         NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
        user_id      varchar(128) NOT NULL,
        issued_count integer      NOT NULL CHECK (issued_count >= 0),
        PRIMARY KEY (template_id, user_id)
      )`);

    await queryRunner.query(`
      CREATE TABLE vouchers (
        id                uuid         PRIMARY KEY,
        issuance_id       uuid         NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        application_id    uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        template_id       uuid         NOT NULL REFERENCES templates (id) ON DELETE CASCADE,
        recipient_user_id varchar(128) NOT NULL REFERENCES users (id),
        external_issue_id varchar(128),
        status            varchar(16)  NOT NULL DEFAULT 'available'
          CHECK (status IN ('available', 'redeemed', 'expired', 'revoked')),
        valid_from        timestamptz  NOT NULL,
        valid_to          timestamptz  NOT NULL,
        qr_token_hash     char(64)     NOT NULL UNIQUE,
        qr_token_enc      text         NOT NULL,
        code_hash         char(64)     NOT NULL,
        code_enc          text         NOT NULL,
        issued_at         timestamptz  NOT NULL DEFAULT now(),
        redeemed_at       timestamptz,
        revoked_at        timestamptz,
        updated_at        timestamptz  NOT NULL DEFAULT now(),
        CONSTRAINT vouchers_external_issue_unique UNIQUE (application_id, external_issue_id),
        CONSTRAINT vouchers_validity CHECK (valid_from < valid_to)
      )`);
    // A code identifies one live voucher of an application; redeemed and expired ones free it for reuse.
    await queryRunner.query(
      `CREATE UNIQUE INDEX vouchers_live_code_unique ON vouchers (application_id, code_hash)
        WHERE status NOT IN ('redeemed', 'expired')`,
    );
    await queryRunner.query(`CREATE INDEX vouchers_code_lookup ON vouchers (application_id, code_hash)`);
    await queryRunner.query(`CREATE INDEX vouchers_recipient ON vouchers (application_id, recipient_user_id)`);
    await queryRunner.query(`CREATE INDEX vouchers_template ON vouchers (template_id)`);

    await queryRunner.query(`
      CREATE TABLE redemptions (
        id                uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        application_id    uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        voucher_id        uuid         NOT NULL REFERENCES vouchers (id) ON DELETE CASCADE,
        external_order_id varchar(128) NOT NULL,
        store_id          varchar(128),
        operator_id       varchar(128),
        occurred_at       timestamptz  NOT NULL,
        status            varchar(16)  NOT NULL DEFAULT 'succeeded' CHECK (status IN ('succeeded', 'reversed')),
        created_at        timestamptz  NOT NULL DEFAULT now(),
        updated_at        timestamptz  NOT NULL DEFAULT now()
      )`);
    // Whatever the application code does, a voucher can have at most one standing redemption.
    await queryRunner.query(
      `CREATE UNIQUE INDEX redemptions_one_standing ON redemptions (voucher_id) WHERE status = 'succeeded'`,
    );
    await queryRunner.query(`CREATE INDEX redemptions_voucher ON redemptions (voucher_id)`);

    await queryRunner.query(`
      CREATE TABLE reversals (
        id             uuid         PRIMARY KEY DEFAULT gen_random_uuid(),
        application_id uuid         NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
        redemption_id  uuid         NOT NULL UNIQUE REFERENCES redemptions (id) ON DELETE CASCADE,
        reason         text,
        operator_id    varchar(128),
        created_at     timestamptz  NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE reversals`);
    await queryRunner.query(`DROP TABLE redemptions`);
    await queryRunner.query(`DROP TABLE vouchers`);
    await queryRunner.query(`DROP TABLE template_user_issues`);
    await queryRunner.query(`DROP TABLE templates`);
    await queryRunner.query(`DROP TABLE authorizations`);
    await queryRunner.query(`DROP TABLE app_tokens`);
    await queryRunner.query(`DROP TABLE applications`);
  }
}
