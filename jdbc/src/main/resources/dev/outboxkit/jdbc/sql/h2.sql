-- H2 2.x, for development and tests: claims like MySQL (candidates, locking re-check, update),
-- with CURRENT_TIMESTAMP as the clock. Statements not here are in common.sql; the format is
-- explained there.

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
                                 WHERE processed_at < {now-micros}
                                 LIMIT ?)
