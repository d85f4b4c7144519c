-- OutboxKit consumer inbox for H2 2.x (development and tests only). Idempotent.
CREATE TABLE IF NOT EXISTS outbox_inbox (
    consumer      VARCHAR(200)                NOT NULL,
    event_id      UUID                        NOT NULL,
    processed_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT outbox_inbox_pkey PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS outbox_inbox_processed_idx ON outbox_inbox (processed_at);
-- The ordering guard (Inbox.accept): the last version applied per consumer and aggregate. Never
-- purged: a row forgotten would let a late event of its aggregate count as new.
CREATE TABLE IF NOT EXISTS outbox_inbox_version (
    consumer        VARCHAR(200)                NOT NULL,
    aggregate_type  VARCHAR(510)                NOT NULL,
    aggregate_id    VARCHAR(510)                NOT NULL,
    version         BIGINT                      NOT NULL,
    updated_at      TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT outbox_inbox_version_pkey PRIMARY KEY (consumer, aggregate_type, aggregate_id)
);
