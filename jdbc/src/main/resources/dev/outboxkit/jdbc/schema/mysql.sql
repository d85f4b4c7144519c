-- OutboxKit event table for MySQL 8.0+ and MariaDB 10.6+. Copy into Flyway/Liquibase as is, or
-- let OutboxSchema.create(connection) run it (it is idempotent). For another table name, replace
-- "outbox_event" everywhere, including the index names.
-- Times are DATETIME(6) in UTC: OutboxKit binds and compares them against UTC_TIMESTAMP(6), so
-- neither the session nor the server time zone matters. The binary collation keeps aggregate ids
-- case-sensitive ('A-1' and 'a-1' are different aggregates).
-- Indexes are declared inside CREATE TABLE because MySQL has no CREATE INDEX IF NOT EXISTS.
CREATE TABLE IF NOT EXISTS outbox_event (
    seq             BIGINT        NOT NULL AUTO_INCREMENT,            -- claim order
    id              CHAR(36)      CHARACTER SET ascii NOT NULL,       -- event id, stable across retries
    aggregate_type  VARCHAR(255)  NOT NULL,
    aggregate_id    VARCHAR(255)  NOT NULL,
    event_type      VARCHAR(255)  NOT NULL,
    schema_version  INT           NOT NULL DEFAULT 1,
    destination     VARCHAR(255),
    tenant          VARCHAR(255),
    payload         LONGBLOB      NOT NULL,
    content_type    VARCHAR(255)  NOT NULL,
    headers         MEDIUMTEXT,                                       -- JSON object of strings
    occurred_at     DATETIME(6)   NOT NULL,
    available_at    DATETIME(6)   NOT NULL,                           -- not claimed before this
    expires_at      DATETIME(6),
    status          VARCHAR(16)   CHARACTER SET ascii NOT NULL DEFAULT 'PENDING',
    attempts        INT           NOT NULL DEFAULT 0,                 -- the event's own failed sends
    last_error      VARCHAR(1000),
    published_at    DATETIME(6),                                      -- when it reached a final state
    lease_owner     VARCHAR(200),
    lease_until     DATETIME(6),
    lease_losses    INT           NOT NULL DEFAULT 0,                 -- leases that ran out unanswered
    aggregate_version BIGINT,                                         -- the aggregate's version after it
    supersede_key   VARCHAR(255),                                     -- a later event with this key withdraws it
    uncertain_sends INT           NOT NULL DEFAULT 0,                 -- sends that may have arrived unconfirmed
    priority        SMALLINT      NOT NULL DEFAULT 0,                 -- -9 to 9: higher is claimed first
    PRIMARY KEY (seq),
    UNIQUE KEY outbox_event_id_key (id),
    -- Rows of one status in seq order. Leading with status keeps PUBLISHED rows out of the scan.
    KEY outbox_event_status_idx (status, seq),
    -- Claim: PENDING rows, higher priority first, then in seq order (a descending key part:
    -- MySQL 8.0 and MariaDB 10.8+ walk it in this order; MariaDB 10.6 sorts the due rows).
    KEY outbox_event_claim_idx (status, priority DESC, seq),
    -- Lease recovery: IN_FLIGHT rows whose relay died.
    KEY outbox_event_lease_idx (status, lease_until),
    -- Ordered mode: "is an earlier event of this aggregate still unfinished?"
    KEY outbox_event_aggregate_idx (aggregate_type, aggregate_id, status, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
