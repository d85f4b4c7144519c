-- Oracle Database 19c+ (preview: not run against a real Oracle server by this project's CI).
-- Times are TIMESTAMP(6) holding UTC, compared with SYS_EXTRACT_UTC(SYSTIMESTAMP). There is no
-- LIMIT, and Oracle refuses a row limit (FETCH FIRST) together with FOR UPDATE (ORA-02014), while
-- ROWNUM is applied before SKIP LOCKED skips (a batch comes back short, or empty, whenever the
-- first rows are locked). So claims run in steps like MySQL's: a plain read of candidates, a FOR
-- UPDATE SKIP LOCKED read that re-checks them, and an update. The locking reads leave out :limit:
-- the engine stops fetching after limit rows (setMaxRows and fetch size). That bounds the locks
-- only because with SKIP LOCKED Oracle locks a row when it is fetched, not when the cursor opens
-- (as a plain FOR UPDATE does): reported from traces and tests, not stated in Oracle's SQL
-- reference, so the first thing to check on a real server. There is no boolean SQL type before
-- 23ai: flags are CASE ... THEN 1 ELSE 0, and a SELECT without a table reads FROM dual.
-- Statements not here are in common.sql.

-- Without a row limit in the SQL the optimizer plans for reading every due row, and for a deep
-- backlog may prefer a full scan and a sort to walking the claim index in order; the
-- FIRST_ROWS goal asks for the plan that returns the first rows soonest (the walk, no sort).
-- name: lockUnordered
SELECT /*+ FIRST_ROWS(100) */ {event_columns},
       CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table}
 WHERE status = 'PENDING' AND available_at <= {now}
 ORDER BY priority DESC, seq
   FOR UPDATE SKIP LOCKED

-- name: lockCandidates
SELECT {event_columns}, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table}
 WHERE seq IN (:seqs) AND status = 'PENDING' AND available_at <= {now}
 ORDER BY priority DESC, seq
   FOR UPDATE SKIP LOCKED

-- The lowest PENDING seq by MIN (an index range scan of (status, seq) that reads one entry):
-- no row limit inside a scalar subquery.
-- name: oldestPending
SELECT (SELECT o.occurred_at FROM {table} o
         WHERE o.seq = (SELECT MIN(m.seq) FROM {table} m WHERE m.status = 'PENDING')) AS oldest,
       {now} AS db_now
  FROM dual

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT COUNT(*) FROM {table} WHERE status = 'CANCELLED') AS cancelled,
       (SELECT COUNT(*) FROM {table} WHERE status = 'SUPERSEDED') AS superseded,
       (SELECT o.occurred_at FROM {table} o
         WHERE o.seq = (SELECT MIN(m.seq) FROM {table} m WHERE m.status = 'PENDING')) AS oldest,
       {now} AS db_now
  FROM dual

-- The hint turns a duplicate (consumer, event_id) into a skipped row (0 rows inserted) instead of
-- ORA-00001; a concurrent insert of the same pair is waited for, then skipped if it committed.
-- The hint names the key's columns, not an index name, so a copy of the DDL with other index
-- names still works; without a unique index on exactly these columns Oracle fails with ORA-38913
-- rather than ignoring the hint. A MERGE would fail with ORA-00001 when two consumers race.
-- name: inboxInsert
INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(i (consumer, event_id)) */
  INTO {table} i (consumer, event_id, processed_at)
VALUES (:consumer, :event_id, {now})

-- ROWNUM in a DELETE is fine: nothing is skipped, any :limit old rows will do.
-- name: inboxPurge
DELETE FROM {table}
 WHERE processed_at < {now - :age}
   AND ROWNUM <= :limit

-- As inboxInsert: a duplicate is skipped, a concurrent insert of the same row waited for. Oracle
-- takes no shared row locks, so the FOR UPDATE of inboxVersionLock is the only lock.
-- name: inboxVersionCreate
INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(v (consumer, aggregate_type, aggregate_id)) */
  INTO {table} v (consumer, aggregate_type, aggregate_id, version, updated_at)
VALUES (:consumer, :aggregate_type, :aggregate_id, 0, {now})
