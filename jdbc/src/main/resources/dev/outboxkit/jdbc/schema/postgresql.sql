-- OutboxKit event table for PostgreSQL 12+. Copy into Flyway/Liquibase as is, or let
-- OutboxSchema.create(connection) run it (it is idempotent). For another table name, replace
-- "outbox_event" everywhere, including the index names.
CREATE TABLE IF NOT EXISTS outbox_event (
    seq             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- claim order
    id              UUID          NOT NULL,                           -- event id, stable across retries
    aggregate_type  VARCHAR(255)  NOT NULL,
    aggregate_id    VARCHAR(255)  NOT NULL,
    event_type      VARCHAR(255)  NOT NULL,
    schema_version  INTEGER       NOT NULL DEFAULT 1,
    destination     VARCHAR(255),
    tenant          VARCHAR(255),
    payload         BYTEA         NOT NULL,
    content_type    VARCHAR(255)  NOT NULL,
    headers         TEXT,                                             -- JSON object of strings
    occurred_at     TIMESTAMPTZ   NOT NULL,
    available_at    TIMESTAMPTZ   NOT NULL,                           -- not claimed before this
    expires_at      TIMESTAMPTZ,
    status          VARCHAR(16)   NOT NULL DEFAULT 'PENDING',
    attempts        INTEGER       NOT NULL DEFAULT 0,                 -- the event's own failed sends
    last_error      VARCHAR(1000),
    published_at    TIMESTAMPTZ,                                      -- when it reached a final state
    lease_owner     VARCHAR(200),
    lease_until     TIMESTAMPTZ,
    lease_losses    INTEGER       NOT NULL DEFAULT 0,                 -- leases that ran out unanswered
    aggregate_version BIGINT,                                         -- the aggregate's version after it
    supersede_key   VARCHAR(255),                                     -- a later event with this key withdraws it
    uncertain_sends INTEGER       NOT NULL DEFAULT 0,                 -- sends that may have arrived unconfirmed
    -- Higher is claimed first. The oldest-pending probe (one per priority) relies on the range.
    priority        SMALLINT      NOT NULL DEFAULT 0 CHECK (priority BETWEEN -9 AND 9),
    CONSTRAINT outbox_event_id_key UNIQUE (id),
    CONSTRAINT outbox_event_status_check
        CHECK (status IN ('PENDING', 'IN_FLIGHT', 'PUBLISHED', 'DEAD', 'EXPIRED', 'CANCELLED',
                          'SUPERSEDED'))
);

-- Partial indexes hold only live rows, so claiming costs the same with a million PUBLISHED rows
-- as with none.
-- Claim: PENDING rows, higher priority first, then in seq order.
CREATE INDEX IF NOT EXISTS outbox_event_claim_idx
    ON outbox_event (priority DESC, seq) WHERE status = 'PENDING';
-- The seq-only claim index of tables made before the priority column, which this one replaces.
DROP INDEX IF EXISTS outbox_event_pending_idx;
-- Lease recovery: IN_FLIGHT rows whose relay died.
CREATE INDEX IF NOT EXISTS outbox_event_lease_idx
    ON outbox_event (lease_until) WHERE status = 'IN_FLIGHT';
-- Ordered mode: "is an earlier event of this aggregate still unfinished?"
CREATE INDEX IF NOT EXISTS outbox_event_aggregate_idx
    ON outbox_event (aggregate_type, aggregate_id, seq) WHERE status IN ('PENDING', 'IN_FLIGHT', 'DEAD');
-- Admin: listing quarantined events.
CREATE INDEX IF NOT EXISTS outbox_event_dead_idx
    ON outbox_event (seq) WHERE status = 'DEAD';
-- Snapshot: counting withdrawn events without reading the PUBLISHED history.
CREATE INDEX IF NOT EXISTS outbox_event_withdrawn_idx
    ON outbox_event (status) WHERE status IN ('CANCELLED', 'SUPERSEDED');
