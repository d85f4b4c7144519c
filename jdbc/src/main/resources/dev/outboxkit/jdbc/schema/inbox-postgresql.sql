-- OutboxKit consumer inbox for PostgreSQL: one row per (consumer, event id) already processed.
-- Copy into your migrations or let OutboxSchema.createInbox(connection) run it (idempotent).
CREATE TABLE IF NOT EXISTS outbox_inbox (
    consumer      VARCHAR(200)  NOT NULL,
    event_id      UUID          NOT NULL,
    processed_at  TIMESTAMPTZ   NOT NULL,
    CONSTRAINT outbox_inbox_pkey PRIMARY KEY (consumer, event_id)
);
-- Purging by age.
CREATE INDEX IF NOT EXISTS outbox_inbox_processed_idx ON outbox_inbox (processed_at);
-- The ordering guard (Inbox.accept): the last version applied per consumer and aggregate. Never
-- purged: a row forgotten would let a late event of its aggregate count as new.
CREATE TABLE IF NOT EXISTS outbox_inbox_version (
    consumer        VARCHAR(200)  NOT NULL,
    aggregate_type  VARCHAR(255)  NOT NULL,
    aggregate_id    VARCHAR(255)  NOT NULL,
    version         BIGINT        NOT NULL,
    updated_at      TIMESTAMPTZ   NOT NULL,
    CONSTRAINT outbox_inbox_version_pkey PRIMARY KEY (consumer, aggregate_type, aggregate_id)
);
