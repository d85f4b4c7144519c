-- MySQL 8.0+ and MariaDB 10.6+: times are DATETIME(6) holding UTC, compared with
-- UTC_TIMESTAMP(6). There is no UPDATE ... RETURNING, and a locking read locks the rows of its
-- subqueries too, so claims run as a plain read of candidates, a FOR UPDATE SKIP LOCKED read that
-- re-checks them, and an update. Every "first live rows in seq order" read says
-- IGNORE INDEX FOR ORDER BY (PRIMARY): without it the optimizer walks the primary key past the whole
-- PUBLISHED history (see MySqlDialect). Statements not here are in common.sql; the format is
-- explained there.

-- name: insert
INSERT INTO {table} (id, aggregate_type, aggregate_id, event_type, schema_version,
                     destination, tenant, payload, content_type, headers, occurred_at,
                     available_at, expires_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6)), ?)

-- name: lockUnordered
SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination,
       tenant, payload, content_type, headers, occurred_at, expires_at, attempts,
       (expires_at <= UTC_TIMESTAMP(6)) AS expired
  FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
 WHERE status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)
 ORDER BY seq
 LIMIT ?
   FOR UPDATE SKIP LOCKED

-- A consistent (non-locking) read. A candidate qualifies only if every earlier event of its
-- aggregate is finished (PUBLISHED or EXPIRED), states no row ever leaves, so a candidate
-- never turns out to be out of order once locked. One probe per unfinished status: with an
-- IN list the optimizer seeks only on the aggregate and reads its whole history per candidate;
-- with one status each probe seeks on (aggregate, status) and ranges on seq.
-- name: orderedCandidates
SELECT c.seq FROM {table} c IGNORE INDEX FOR ORDER BY (PRIMARY)
 WHERE c.status = 'PENDING' AND c.available_at <= UTC_TIMESTAMP(6)
   AND NOT EXISTS (SELECT 1 FROM {table} p
                    WHERE p.aggregate_type = c.aggregate_type
                      AND p.aggregate_id = c.aggregate_id
                      AND p.status = 'PENDING' AND p.seq < c.seq)
   AND NOT EXISTS (SELECT 1 FROM {table} p
                    WHERE p.aggregate_type = c.aggregate_type
                      AND p.aggregate_id = c.aggregate_id
                      AND p.status = 'IN_FLIGHT' AND p.seq < c.seq)
   AND NOT EXISTS (SELECT 1 FROM {table} p
                    WHERE p.aggregate_type = c.aggregate_type
                      AND p.aggregate_id = c.aggregate_id
                      AND p.status = 'DEAD' AND p.seq < c.seq)
 ORDER BY c.seq
 LIMIT ?

-- name: lockCandidates
SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination,
       tenant, payload, content_type, headers, occurred_at, expires_at, attempts,
       (expires_at <= UTC_TIMESTAMP(6)) AS expired
  FROM {table}
 WHERE seq IN ({seqs}) AND status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)
 ORDER BY seq
 LIMIT ?
   FOR UPDATE SKIP LOCKED

-- name: markClaimed
UPDATE {table}
   SET status = 'IN_FLIGHT', lease_owner = ?,
       lease_until = TIMESTAMPADD(MICROSECOND, ? * 1000, UTC_TIMESTAMP(6)),
       attempts = attempts + 1
 WHERE seq IN ({seqs})

-- name: beforeRelayTransaction
SET TRANSACTION ISOLATION LEVEL READ COMMITTED

-- name: reclaimExpiredLeases
UPDATE {table} SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
 WHERE status = 'IN_FLIGHT' AND lease_until <= UTC_TIMESTAMP(6)

-- name: markPublished
UPDATE {table}
   SET status = 'PUBLISHED', published_at = UTC_TIMESTAMP(6), lease_owner = NULL,
       lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: markExpired
UPDATE {table}
   SET status = 'EXPIRED', published_at = UTC_TIMESTAMP(6), lease_owner = NULL,
       lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})

-- name: markRetry
UPDATE {table}
   SET status = 'PENDING', available_at = TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6)),
       attempts = attempts - ?, last_error = ?, lease_owner = NULL, lease_until = NULL
 WHERE seq = ? AND lease_owner = ? AND status = 'IN_FLIGHT'

-- name: oldestPending
SELECT (SELECT occurred_at FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       UTC_TIMESTAMP(6) AS db_now

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT occurred_at FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       UTC_TIMESTAMP(6) AS db_now

-- The common statement with the primary-key hint.
-- name: listDead
SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, last_error,
       occurred_at
  FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
 WHERE status = 'DEAD' AND seq > ?
 ORDER BY seq
 LIMIT ?

-- name: replayDead
UPDATE {table}
   SET status = 'PENDING', attempts = 0, available_at = UTC_TIMESTAMP(6), last_error = NULL
 WHERE id = ? AND status = 'DEAD'

-- name: replayAllDead
UPDATE {table}
   SET status = 'PENDING', attempts = 0, available_at = UTC_TIMESTAMP(6), last_error = NULL
 WHERE status = 'DEAD'

-- name: purgeFinished
DELETE FROM {table}
 WHERE status IN ('PUBLISHED', 'EXPIRED')
   AND published_at < TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))
 ORDER BY seq
 LIMIT ?

-- IGNORE also downgrades other errors to warnings; Inbox validates its inputs first, so only
-- the duplicate key is left to ignore.
-- name: inboxInsert
INSERT IGNORE INTO {table} (consumer, event_id, processed_at)
VALUES (?, ?, UTC_TIMESTAMP(6))

-- name: inboxPurge
DELETE FROM {table}
 WHERE processed_at < TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))
 LIMIT ?
