-- OutboxKit consumer inbox for Oracle Database 19c+ (preview: not run against a real Oracle server
-- by this project's CI): one row per (consumer, event id) already processed. Copy into your
-- migrations or let OutboxSchema.createInbox(connection) run it (it skips what exists). The
-- inbox insert's IGNORE_ROW_ON_DUPKEY_INDEX hint needs the primary key on exactly these columns.
CREATE TABLE outbox_inbox (
    consumer      VARCHAR2(200 CHAR) NOT NULL,
    event_id      RAW(16)            NOT NULL,
    processed_at  TIMESTAMP(6)       NOT NULL,                  -- UTC
    CONSTRAINT outbox_inbox_pkey PRIMARY KEY (consumer, event_id)
);
-- Purging by age.
CREATE INDEX outbox_inbox_processed_idx ON outbox_inbox (processed_at);
-- The ordering guard (Inbox.accept): the last version applied per consumer and aggregate. Never
-- purged: a row forgotten would let a late event of its aggregate count as new. The
-- IGNORE_ROW_ON_DUPKEY_INDEX hint of inboxVersionCreate needs the primary key on exactly these
-- columns.
CREATE TABLE outbox_inbox_version (
    consumer        VARCHAR2(200 CHAR) NOT NULL,
    aggregate_type  VARCHAR2(255 CHAR) NOT NULL,
    aggregate_id    VARCHAR2(255 CHAR) NOT NULL,
    version         NUMBER(19)         NOT NULL,
    updated_at      TIMESTAMP(6)       NOT NULL,                  -- UTC
    CONSTRAINT outbox_inbox_version_pkey PRIMARY KEY (consumer, aggregate_type, aggregate_id)
);
