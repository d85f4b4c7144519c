-- OutboxKit consumer inbox for Microsoft SQL Server 2017+ (preview: not run against a real SQL
-- Server by this project's CI): one row per (consumer, event id) already processed. Copy into
-- your migrations or let OutboxSchema.createInbox(connection) run it (it skips what exists). The
-- BIN2 collation keeps consumer names case-sensitive.
CREATE TABLE outbox_inbox (
    consumer      NVARCHAR(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    event_id      UNIQUEIDENTIFIER NOT NULL,
    processed_at  DATETIME2(6)     NOT NULL,                    -- UTC
    CONSTRAINT outbox_inbox_pkey PRIMARY KEY (consumer, event_id)
);
-- Purging by age.
CREATE INDEX outbox_inbox_processed_idx ON outbox_inbox (processed_at);
-- The ordering guard (Inbox.accept): the last version applied per consumer and aggregate. Never
-- purged: a row forgotten would let a late event of its aggregate count as new. A nonclustered
-- key may hold 1,700 bytes: SQL Server warns at creation that longer keys fail, which only
-- consumer names and aggregate ids far longer than usual reach.
CREATE TABLE outbox_inbox_version (
    consumer        NVARCHAR(200) COLLATE Latin1_General_100_BIN2 NOT NULL,
    aggregate_type  NVARCHAR(510) COLLATE Latin1_General_100_BIN2 NOT NULL,
    aggregate_id    NVARCHAR(510) COLLATE Latin1_General_100_BIN2 NOT NULL,
    version         BIGINT           NOT NULL,
    updated_at      DATETIME2(6)     NOT NULL,                    -- UTC
    CONSTRAINT outbox_inbox_version_pkey
        PRIMARY KEY NONCLUSTERED (consumer, aggregate_type, aggregate_id)
);
