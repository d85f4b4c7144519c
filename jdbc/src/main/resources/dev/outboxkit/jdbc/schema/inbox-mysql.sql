-- OutboxKit consumer inbox for MySQL 8.0+ and MariaDB 10.6+: one row per (consumer, event id)
-- already processed. Copy into your migrations or let OutboxSchema.createInbox(connection) run it.
CREATE TABLE IF NOT EXISTS outbox_inbox (
    consumer      VARCHAR(200)  NOT NULL,
    event_id      CHAR(36)      CHARACTER SET ascii NOT NULL,
    processed_at  DATETIME(6)   NOT NULL,                  -- UTC
    PRIMARY KEY (consumer, event_id),
    KEY outbox_inbox_processed_idx (processed_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
-- The ordering guard (Inbox.accept): the last version applied per consumer and aggregate. Never
-- purged: a row forgotten would let a late event of its aggregate count as new. The key is at
-- most 2,840 bytes in utf8mb4, within InnoDB's 3,072.
CREATE TABLE IF NOT EXISTS outbox_inbox_version (
    consumer        VARCHAR(200)  NOT NULL,
    aggregate_type  VARCHAR(255)  NOT NULL,
    aggregate_id    VARCHAR(255)  NOT NULL,
    version         BIGINT        NOT NULL,
    updated_at      DATETIME(6)   NOT NULL,                -- UTC
    PRIMARY KEY (consumer, aggregate_type, aggregate_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
