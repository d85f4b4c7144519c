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
-- the vendor's current time (now(), UTC_TIMESTAMP(6), CURRENT_TIMESTAMP), and {now+micros} and
-- {now-micros} that time moved by one bound parameter of whole microseconds, filled in as the
-- dialect loads (SqlClock); vendor files use them too. Every time comparison uses the database
-- clock, never the relay host's. The relay's acknowledgements are fenced: they change a row only
-- while this relay owns it (lease_owner = ?, status IN_FLIGHT).

-- name: insert
INSERT INTO {table} ({written_columns}, available_at)
VALUES ({written_values}, {now+micros})

-- name: markClaimed
UPDATE {table}
   SET status = 'IN_FLIGHT', lease_owner = ?, lease_until = {now+micros}
 WHERE seq IN ({seqs}) AND status = 'PENDING'

-- name: markRetry
UPDATE {table}
   SET status = 'PENDING', available_at = {now+micros},
       attempts = attempts + ?, last_error = ?, lease_owner = NULL, lease_until = NULL
 WHERE seq = ? AND lease_owner = ? AND status = 'IN_FLIGHT'

-- An outage of one destination: its events of the round go back to PENDING together, uncharged.
-- name: markHeld
UPDATE {table}
   SET status = 'PENDING', available_at = {now+micros}, last_error = ?,
       lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: oldestPending
SELECT (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       {now} AS db_now

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       {now} AS db_now

-- What OutboxRelay.drainUntilDone still waits for: PENDING rows (all of them; those behind an
-- earlier DEAD row of their aggregate, which ordered mode never delivers; those due within the
-- bound microseconds, with and without the ones behind DEAD). Param: the micros (twice).
-- name: drainLeft
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} p WHERE p.status = 'PENDING'
           AND EXISTS (SELECT 1 FROM {table} d
                        WHERE d.aggregate_type = p.aggregate_type
                          AND d.aggregate_id = p.aggregate_id
                          AND d.status = 'DEAD' AND d.seq < p.seq)) AS behind_dead,
       (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING' AND available_at <= {now+micros})
         AS due,
       (SELECT COUNT(*) FROM {table} p WHERE p.status = 'PENDING'
           AND p.available_at <= {now+micros}
           AND NOT EXISTS (SELECT 1 FROM {table} d
                            WHERE d.aggregate_type = p.aggregate_type
                              AND d.aggregate_id = p.aggregate_id
                              AND d.status = 'DEAD' AND d.seq < p.seq)) AS due_not_behind

-- Retention walks the primary key in windows (index-driven, whatever the table holds) and reads
-- without locking; old = 1 marks a row past its retention. Params: finished on (1/0), its
-- retention micros, DEAD on (1/0), its retention micros, the seq the window starts after, the
-- window size. published_at is when the row finished: PUBLISHED, EXPIRED or DEAD.
-- name: retentionWindow
SELECT seq,
       CASE WHEN (? = 1 AND status IN ('PUBLISHED', 'EXPIRED') AND published_at < {now-micros})
              OR (? = 1 AND status = 'DEAD' AND published_at < {now-micros})
            THEN 1 ELSE 0 END AS old
  FROM {table}
 WHERE seq > ?
 ORDER BY seq
 LIMIT ?

-- Deletes the window's old rows by primary key (so it locks only them), checking again that they
-- are still past retention (a DEAD row may have been replayed since). Params: the seqs, then the
-- four of retentionWindow.
-- name: purgeRetained
DELETE FROM {table}
 WHERE seq IN ({seqs})
   AND ((? = 1 AND status IN ('PUBLISHED', 'EXPIRED') AND published_at < {now-micros})
        OR (? = 1 AND status = 'DEAD' AND published_at < {now-micros}))

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
