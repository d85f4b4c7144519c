-- OutboxKit statements that read the same on every supported database.
--
-- Each statement starts at a "-- name: <statement>" line and runs to the next one; other whole-line
-- comments are dropped when loading. A vendor file (postgresql.sql, mysql.sql for MySQL and MariaDB,
-- h2.sql) holds the statements that differ for that vendor: a name it defines replaces the one here.
-- Placeholders: {table} is the validated, possibly schema-qualified table name; {seqs} a list of "?"
-- for a batch of sequence numbers; {written_columns} and {written_values} the columns an append
-- binds and as many "?"; {event_columns} (or {event_columns:c}, qualified by alias c) the columns
-- a claim reads an event from. The column lists are named once, in EventRows, so that a new column
-- is its DDL plus that class. Here, where a statement differs by vendor only in its clock, {now} is
-- the vendor's current time (now(), UTC_TIMESTAMP(6), CURRENT_TIMESTAMP), filled in as the dialect
-- loads; vendor files name their clock. Every time comparison uses the database clock, never the relay
-- host's. The relay's acknowledgements are fenced: they change a row only while this relay owns it
-- (lease_owner = ?, status IN_FLIGHT).

-- name: deletePublished
DELETE FROM {table}
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: release
UPDATE {table}
   SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: countStatus
SELECT COUNT(*) FROM {table} WHERE status = ?

-- name: countByStatus
SELECT status, COUNT(*) AS n FROM {table} GROUP BY status

-- name: listDead
SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, last_error,
       occurred_at
  FROM {table}
 WHERE status = 'DEAD' AND seq > ?
 ORDER BY seq
 LIMIT ?

-- name: discardDead
DELETE FROM {table} WHERE id = ? AND status = 'DEAD'

-- An event whose lease ran out so often that it is the likely reason the relays holding it
-- died (a poison message that crashes or hangs the sender) is quarantined, not claimed again.
-- Params: the reason, the number of lost leases that quarantines.
-- name: quarantineLostLeases
UPDATE {table}
   SET status = 'DEAD', last_error = ?, published_at = {now}, lease_owner = NULL,
       lease_until = NULL, lease_losses = lease_losses + 1
 WHERE status = 'IN_FLIGHT' AND lease_until <= {now} AND lease_losses + 1 >= ?

-- A lost lease is not the event's failure: attempts stay as they were, the loss is counted apart.
-- name: reclaimExpiredLeases
UPDATE {table}
   SET status = 'PENDING', lease_owner = NULL, lease_until = NULL,
       lease_losses = lease_losses + 1
 WHERE status = 'IN_FLIGHT' AND lease_until <= {now}

-- name: markPublished
UPDATE {table}
   SET status = 'PUBLISHED', published_at = {now}, lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: markExpired
UPDATE {table}
   SET status = 'EXPIRED', published_at = {now}, lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: markDead
UPDATE {table}
   SET status = 'DEAD', attempts = attempts + 1, last_error = ?, published_at = {now},
       lease_owner = NULL, lease_until = NULL
 WHERE seq = ? AND lease_owner = ? AND status = 'IN_FLIGHT'

-- name: replayDead
UPDATE {table}
   SET status = 'PENDING', attempts = 0, lease_losses = 0, available_at = {now}, last_error = NULL,
       published_at = NULL
 WHERE id = ? AND status = 'DEAD'

-- name: replayAllDead
UPDATE {table}
   SET status = 'PENDING', attempts = 0, lease_losses = 0, available_at = {now}, last_error = NULL,
       published_at = NULL
 WHERE status = 'DEAD'

-- A run: an aggregate's PENDING events after its head (which this claim holds), up to the first
-- IN_FLIGHT or DEAD one; the caller stops at the first that is not due. A non-locking read: no
-- other relay can claim these rows while the head is held, since each is blocked by the head.
-- One part per head, joined by UNION ALL; each reads at most its LIMIT from the aggregate index.
-- Params: aggregate type, aggregate id, head seq (three times), the most rows.
-- name: runSuccessors
(SELECT {event_columns:c}, (c.expires_at <= {now}) AS expired,
        (c.available_at <= {now}) AS due
   FROM {table} c
  WHERE c.aggregate_type = ? AND c.aggregate_id = ? AND c.status = 'PENDING' AND c.seq > ?
    AND NOT EXISTS (SELECT 1 FROM {table} p
                     WHERE p.aggregate_type = c.aggregate_type
                       AND p.aggregate_id = c.aggregate_id
                       AND p.status = 'IN_FLIGHT' AND p.seq > ? AND p.seq < c.seq)
    AND NOT EXISTS (SELECT 1 FROM {table} p
                     WHERE p.aggregate_type = c.aggregate_type
                       AND p.aggregate_id = c.aggregate_id
                       AND p.status = 'DEAD' AND p.seq > ? AND p.seq < c.seq)
  ORDER BY c.seq
  LIMIT ?)
