-- OutboxKit event table for Microsoft SQL Server 2017+ (preview: not run against a real SQL Server
-- by this project's CI). Copy into your migrations, or let OutboxSchema.create(connection) run it:
-- it skips a statement that fails because the object exists (errors 2714, 1913). For another
-- table name, replace "outbox_event" everywhere, including the constraint and index names
-- (constraint names are unique per schema).
-- Times are DATETIME2(6) in UTC: OutboxKit binds them as UTC and compares them with
-- SYSUTCDATETIME(), so the server's time zone does not matter.
-- Text is NVARCHAR: the JDBC driver sends strings as Unicode, and a VARCHAR column compared with
-- an NVARCHAR parameter is converted row by row, which can turn an index seek into a scan. An
-- NVARCHAR length counts UTF-16 units, where a character outside the BMP (an emoji) takes two,
-- so the columns OutboxEvent allows 255 characters in are NVARCHAR(510). Their BIN2 collation
-- keeps aggregate ids and owners case-sensitive ('A-1' and 'a-1' are different aggregates); the
-- usual database default is case-insensitive. The aggregate index may hold up to 2,080 bytes per
-- key: SQL Server warns at creation that keys over 1,700 bytes fail, which only an aggregate type
-- and id of mostly non-BMP characters, together over 830 UTF-16 units, can reach.
-- READ_COMMITTED_SNAPSHOT ON (a database option) lets the plain reads of the ordered claim read
-- past rows other relays are updating instead of waiting for them; it is not required.
CREATE TABLE outbox_event (
    seq             BIGINT IDENTITY(1, 1) NOT NULL,                   -- claim order
    id              UNIQUEIDENTIFIER NOT NULL,                  -- event id, stable across retries
    aggregate_type  NVARCHAR(510) COLLATE Latin1_General_100_BIN2 NOT NULL,
    aggregate_id    NVARCHAR(510) COLLATE Latin1_General_100_BIN2 NOT NULL,
    event_type      NVARCHAR(510) NOT NULL,
    schema_version  INT           NOT NULL DEFAULT 1,
    destination     NVARCHAR(510),
    tenant          NVARCHAR(510),
    payload         VARBINARY(MAX) NOT NULL,
    content_type    NVARCHAR(255) NOT NULL,
    headers         NVARCHAR(MAX),                                    -- JSON object of strings
    occurred_at     DATETIME2(6)  NOT NULL,
    available_at    DATETIME2(6)  NOT NULL,                           -- not claimed before this
    expires_at      DATETIME2(6),
    status          NVARCHAR(16)  NOT NULL DEFAULT 'PENDING',
    attempts        INT           NOT NULL DEFAULT 0,
    last_error      NVARCHAR(1000),
    published_at    DATETIME2(6),                                     -- when it finished
    lease_owner     NVARCHAR(200) COLLATE Latin1_General_100_BIN2,
    lease_until     DATETIME2(6),
    lease_losses    INT           NOT NULL DEFAULT 0,
    aggregate_version BIGINT,                                         -- the aggregate's version after it
    supersede_key   NVARCHAR(510) COLLATE Latin1_General_100_BIN2,    -- a later event with this key withdraws it
    uncertain_sends INT           NOT NULL DEFAULT 0,                 -- sends that may have arrived unconfirmed
    priority        SMALLINT      NOT NULL DEFAULT 0,                 -- -9 to 9: higher is claimed first
    CONSTRAINT outbox_event_pkey PRIMARY KEY (seq),                    -- clustered, by default
    CONSTRAINT outbox_event_id_key UNIQUE (id),
    CONSTRAINT outbox_event_status_check
        CHECK (status IN ('PENDING', 'IN_FLIGHT', 'PUBLISHED', 'DEAD', 'EXPIRED', 'CANCELLED',
                          'SUPERSEDED'))
);
-- Rows of one status in seq order. Leading with status keeps PUBLISHED rows out of the scan.
CREATE INDEX outbox_event_status_idx ON outbox_event (status, seq);
-- Claim: PENDING rows, higher priority first, then in seq order.
CREATE INDEX outbox_event_claim_idx ON outbox_event (status, priority DESC, seq);
-- Lease recovery: IN_FLIGHT rows whose relay died.
CREATE INDEX outbox_event_lease_idx ON outbox_event (status, lease_until);
-- Ordered mode: "is an earlier event of this aggregate still unfinished?"
CREATE INDEX outbox_event_aggregate_idx
    ON outbox_event (aggregate_type, aggregate_id, status, seq);
