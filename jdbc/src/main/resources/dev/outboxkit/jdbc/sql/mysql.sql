-- MySQL 8.0+ and MariaDB 10.6+: times are DATETIME(6) holding UTC, compared with
-- UTC_TIMESTAMP(6). There is no UPDATE ... RETURNING, and a locking read locks the rows of its
-- subqueries too, so claims run as a plain read of candidates, a FOR UPDATE SKIP LOCKED read that
-- re-checks them, and an update. Every "first live rows in seq order" read says
-- IGNORE INDEX FOR ORDER BY (PRIMARY): without it the optimizer walks the primary key past the whole
-- PUBLISHED history (see MySqlDialect). Statements not here are in common.sql; the format is
-- explained there.

-- name: lockUnordered
SELECT {event_columns}, (expires_at <= UTC_TIMESTAMP(6)) AS expired
  FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
 WHERE status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)
 ORDER BY priority DESC, seq
 LIMIT :limit
   FOR UPDATE SKIP LOCKED

-- A consistent (non-locking) read. A candidate qualifies only if every earlier event of its
-- aggregate is finished (PUBLISHED, EXPIRED, CANCELLED, SUPERSEDED), states no row leaves, so one
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
 ORDER BY c.priority DESC, c.seq
 LIMIT :limit

-- The first due PENDING rows (a bounded read, however deep the backlog), each with whether it
-- qualifies as above: with a hot aggregate or few aggregates the heads are found without reading
-- the whole backlog, and a window of heads only, not full, shows there is no run behind them.
-- Params: the window.
-- name: orderedCandidatesInWindow
SELECT c.seq,
       CASE WHEN NOT EXISTS (SELECT 1 FROM {table} p
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
            THEN 1 ELSE 0 END AS head
  FROM (SELECT w.seq, w.priority, w.aggregate_type, w.aggregate_id
          FROM {table} w IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE w.status = 'PENDING' AND w.available_at <= UTC_TIMESTAMP(6)
         ORDER BY w.priority DESC, w.seq
         LIMIT :limit) c
 ORDER BY c.priority DESC, c.seq

-- name: lockCandidates
SELECT {event_columns}, (expires_at <= UTC_TIMESTAMP(6)) AS expired
  FROM {table}
 WHERE seq IN (:seqs) AND status = 'PENDING' AND available_at <= UTC_TIMESTAMP(6)
 ORDER BY priority DESC, seq
 LIMIT :limit
   FOR UPDATE SKIP LOCKED

-- name: beforeRelayTransaction
SET TRANSACTION ISOLATION LEVEL READ COMMITTED

-- Session variables, so the previous values are kept in user variables and put back by
-- unboundTransaction. wait_timeout is the server's idle limit while it waits for the client's
-- next statement, also inside a transaction: a client whose network died mid-transaction is
-- disconnected after it and its row locks released. innodb_lock_wait_timeout bounds lock
-- waits; max_execution_time bounds plain SELECTs (MySQL has no limit for other statements:
-- the client's network timeout is their bound). The integer variables refuse text: cast.
-- name: boundTransaction
SET @outboxkit_wait_timeout = @@SESSION.wait_timeout,
    @outboxkit_lock_wait_timeout = @@SESSION.innodb_lock_wait_timeout,
    @outboxkit_max_execution_time = @@SESSION.max_execution_time,
    SESSION wait_timeout = CAST(CEIL(:timeout_ms / 1000) AS UNSIGNED),
    SESSION innodb_lock_wait_timeout = CAST(CEIL(:timeout_ms / 1000) AS UNSIGNED),
    SESSION max_execution_time = CAST(:timeout_ms AS UNSIGNED)

-- name: unboundTransaction
SET SESSION wait_timeout = @outboxkit_wait_timeout,
    SESSION innodb_lock_wait_timeout = @outboxkit_lock_wait_timeout,
    SESSION max_execution_time = @outboxkit_max_execution_time

-- name: oldestPending
SELECT (SELECT occurred_at FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       UTC_TIMESTAMP(6) AS db_now

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT COUNT(*) FROM {table} WHERE status = 'CANCELLED') AS cancelled,
       (SELECT COUNT(*) FROM {table} WHERE status = 'SUPERSEDED') AS superseded,
       (SELECT occurred_at FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
         WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       UTC_TIMESTAMP(6) AS db_now

-- The common statement with the primary-key hint.
-- name: listDead
SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, uncertain_sends, last_error,
       occurred_at, destination, published_at
  FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
 WHERE status = 'DEAD' AND seq > :after
 ORDER BY seq
 LIMIT :limit

-- The common statement with the primary-key hint, and status LIKE 'DEAD' (no wildcard: the same
-- rows) in place of status = 'DEAD'. With the equality, a first page ties the range on
-- (status, seq) with a lookup on the claim index, which MySQL prefers: it then reads every DEAD
-- row and sorts them for each page. LIKE allows no lookup, only the range on (status, seq), whose
-- order is ORDER BY status, seq: the page comes out in order and the read stops at the limit.
-- name: findDead
SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, uncertain_sends, last_error,
       occurred_at, destination, published_at
  FROM {table} IGNORE INDEX FOR ORDER BY (PRIMARY)
 WHERE status LIKE 'DEAD' AND seq > :after
   AND (:any_destination = 1 OR destination = :destination)
   AND (:any_event_type = 1 OR event_type = :event_type)
   AND (:any_aggregate_type = 1 OR aggregate_type = :aggregate_type)
   AND (:any_aggregate_id = 1 OR aggregate_id = :aggregate_id)
   AND published_at >= :dead_from AND published_at < :dead_to
 ORDER BY status, seq
 LIMIT :limit

-- IGNORE also downgrades other errors to warnings; Inbox validates its inputs first, so only
-- the duplicate key is left to ignore.
-- name: inboxInsert
INSERT IGNORE INTO {table} (consumer, event_id, processed_at)
VALUES (:consumer, :event_id, UTC_TIMESTAMP(6))

-- name: inboxPurge
DELETE FROM {table}
 WHERE processed_at < {now - :age}
 LIMIT :limit

-- Not INSERT IGNORE: on an existing row it takes a shared lock, and two deliveries of one
-- aggregate that both hold it and then ask for inboxVersionLock's exclusive lock deadlock. ON
-- DUPLICATE KEY UPDATE takes the exclusive lock of that row at once (a record lock: no gap), so
-- the second delivery waits here for the first to end.
-- name: inboxVersionCreate
INSERT INTO {table} (consumer, aggregate_type, aggregate_id, version, updated_at)
VALUES (:consumer, :aggregate_type, :aggregate_id, 0, UTC_TIMESTAMP(6))
ON DUPLICATE KEY UPDATE version = version
