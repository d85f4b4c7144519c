-- OutboxKit console audit table for MySQL 8.0+ and MariaDB 10.6+. Copy into Flyway/Liquibase as
-- is, or let ConsoleSchema.create(connection) run it (it is idempotent). One row per replay or
-- discard by filter: who, when (UTC epoch milliseconds), what filter, what the dry run showed,
-- what changed.
CREATE TABLE IF NOT EXISTS outbox_console_audit (
    id            CHAR(36)      CHARACTER SET ascii NOT NULL,
    at_epoch_ms   BIGINT        NOT NULL,   -- when the action started
    actor         VARCHAR(255)  NOT NULL,   -- the caller's name, as the server authenticated it
    operation     VARCHAR(32)   NOT NULL,   -- replay or discard
    criteria      VARCHAR(2000) NOT NULL,   -- the filter, as the console shows it
    dry_run_rows  BIGINT,                   -- the count the operator saw and confirmed
    changed_rows  BIGINT,                   -- the rows changed, null until the action ends
    outcome       VARCHAR(1000) NOT NULL,   -- started, done, or failed: why
    PRIMARY KEY (id),
    KEY outbox_console_audit_at_idx (at_epoch_ms)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
