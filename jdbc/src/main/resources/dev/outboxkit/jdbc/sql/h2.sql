-- H2 2.x, for development and tests: claims like MySQL (candidates, locking re-check, update),
-- with CURRENT_TIMESTAMP as the clock. Statements not here are in common.sql; the format is
-- explained there.

-- name: insert
INSERT INTO {table} ({written_columns}, available_at)
VALUES ({written_values}, DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP))

-- name: lockUnordered
SELECT {event_columns}, (expires_at <= CURRENT_TIMESTAMP) AS expired
  FROM {table}
 WHERE status = 'PENDING' AND available_at <= CURRENT_TIMESTAMP
 ORDER BY seq
 LIMIT ?
   FOR UPDATE SKIP LOCKED

-- name: orderedCandidates
SELECT c.seq FROM {table} c
 WHERE c.status = 'PENDING' AND c.available_at <= CURRENT_TIMESTAMP
   AND NOT EXISTS (SELECT 1 FROM {table} p
                    WHERE p.aggregate_type = c.aggregate_type
                      AND p.aggregate_id = c.aggregate_id
                      AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                      AND p.seq < c.seq)
 ORDER BY c.seq
 LIMIT ?

-- The first due PENDING rows, each with whether it qualifies as above. Params: the window.
-- name: orderedCandidatesInWindow
SELECT c.seq,
       CASE WHEN NOT EXISTS (SELECT 1 FROM {table} p
                              WHERE p.aggregate_type = c.aggregate_type
                                AND p.aggregate_id = c.aggregate_id
                                AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                                AND p.seq < c.seq)
            THEN 1 ELSE 0 END AS head
  FROM (SELECT w.seq, w.aggregate_type, w.aggregate_id FROM {table} w
         WHERE w.status = 'PENDING' AND w.available_at <= CURRENT_TIMESTAMP
         ORDER BY w.seq
         LIMIT ?) c
 ORDER BY c.seq

-- name: lockCandidates
SELECT {event_columns}, (expires_at <= CURRENT_TIMESTAMP) AS expired
  FROM {table}
 WHERE seq IN ({seqs}) AND status = 'PENDING' AND available_at <= CURRENT_TIMESTAMP
 ORDER BY seq
 LIMIT ?
   FOR UPDATE SKIP LOCKED

-- name: markClaimed
UPDATE {table}
   SET status = 'IN_FLIGHT', lease_owner = ?,
       lease_until = DATEADD(MILLISECOND, ?, CURRENT_TIMESTAMP)
 WHERE seq IN ({seqs}) AND status = 'PENDING'

-- name: markRetry
UPDATE {table}
   SET status = 'PENDING', available_at = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP),
       attempts = attempts + ?, last_error = ?, lease_owner = NULL, lease_until = NULL
 WHERE seq = ? AND lease_owner = ? AND status = 'IN_FLIGHT'

-- name: oldestPending
SELECT (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       CURRENT_TIMESTAMP AS db_now

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq LIMIT 1)
         AS oldest,
       CURRENT_TIMESTAMP AS db_now

-- Retention walks the primary key in windows (index-driven, whatever the table holds) and reads
-- without locking; old = 1 marks a row past its retention. Params: finished on (1/0), its
-- retention micros, DEAD on (1/0), its retention micros, the seq the window starts after, the
-- window size. published_at is when the row finished: PUBLISHED, EXPIRED or DEAD.
-- name: retentionWindow
SELECT seq,
       CASE WHEN (? = 1 AND status IN ('PUBLISHED', 'EXPIRED')
                  AND published_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP))
              OR (? = 1 AND status = 'DEAD' AND published_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP))
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
   AND ((? = 1 AND status IN ('PUBLISHED', 'EXPIRED') AND published_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP))
        OR (? = 1 AND status = 'DEAD' AND published_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP)))

-- name: inboxInsert
MERGE INTO {table} t
USING (VALUES (CAST(? AS VARCHAR(200)), CAST(? AS UUID))) s (consumer, event_id)
   ON t.consumer = s.consumer AND t.event_id = s.event_id
 WHEN NOT MATCHED THEN
      INSERT (consumer, event_id, processed_at)
      VALUES (s.consumer, s.event_id, CURRENT_TIMESTAMP)

-- name: inboxPurge
DELETE FROM {table}
 WHERE (consumer, event_id) IN (SELECT consumer, event_id FROM {table}
                                 WHERE processed_at < DATEADD(MICROSECOND, -?, CURRENT_TIMESTAMP)
                                 LIMIT ?)

-- An outage of one destination: its events of the round go back to PENDING together, uncharged.
-- name: markHeld
UPDATE {table}
   SET status = 'PENDING', available_at = DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP), last_error = ?,
       lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = ? AND status = 'IN_FLIGHT' AND seq IN ({seqs})
