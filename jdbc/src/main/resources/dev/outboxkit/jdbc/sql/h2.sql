-- H2 2.x, for development and tests: claims like MySQL (candidates, locking re-check, update),
-- with the statements of common.sql, CURRENT_TIMESTAMP as the clock. Statements not here are in
-- common.sql; the format is explained there.

-- name: inboxInsert
MERGE INTO {table} t
USING (VALUES (CAST(:consumer AS VARCHAR(200)), CAST(:event_id AS UUID))) s (consumer, event_id)
   ON t.consumer = s.consumer AND t.event_id = s.event_id
 WHEN NOT MATCHED THEN
      INSERT (consumer, event_id, processed_at)
      VALUES (s.consumer, s.event_id, CURRENT_TIMESTAMP)

-- name: inboxPurge
DELETE FROM {table}
 WHERE (consumer, event_id) IN (SELECT consumer, event_id FROM {table}
                                 WHERE processed_at < {now - :age}
                                 LIMIT :limit)

-- A concurrent insert of the same row makes the loser's MERGE fail with a duplicate key, a
-- statement error that leaves the transaction usable: Inbox then locks the winner's row.
-- name: inboxVersionCreate
MERGE INTO {table} t
USING (VALUES (CAST(:consumer AS VARCHAR(200)), CAST(:aggregate_type AS VARCHAR(510)),
               CAST(:aggregate_id AS VARCHAR(510)))) s (consumer, aggregate_type, aggregate_id)
   ON t.consumer = s.consumer AND t.aggregate_type = s.aggregate_type
      AND t.aggregate_id = s.aggregate_id
 WHEN NOT MATCHED THEN
      INSERT (consumer, aggregate_type, aggregate_id, version, updated_at)
      VALUES (s.consumer, s.aggregate_type, s.aggregate_id, 0, CURRENT_TIMESTAMP)
