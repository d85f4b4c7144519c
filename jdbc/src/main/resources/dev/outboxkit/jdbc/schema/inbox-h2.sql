-- OutboxKit consumer inbox for H2 2.x (development and tests only). Idempotent.
CREATE TABLE IF NOT EXISTS outbox_inbox (
    consumer      VARCHAR(200)                NOT NULL,
    event_id      UUID                        NOT NULL,
    processed_at  TIMESTAMP(6) WITH TIME ZONE NOT NULL,
    CONSTRAINT outbox_inbox_pkey PRIMARY KEY (consumer, event_id)
);
CREATE INDEX IF NOT EXISTS outbox_inbox_processed_idx ON outbox_inbox (processed_at);
