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
