-- OutboxKit statements that read the same on every supported database.
--
-- Each statement starts at a "-- name: <statement>" line and runs to the next one; other whole-line
-- comments are dropped when loading. A vendor file (postgresql.sql, mysql.sql for MySQL and MariaDB,
-- h2.sql) holds the statements that differ for that vendor: a name it defines replaces the one here.
-- Placeholders: {table} is the validated, possibly schema-qualified table name; {seqs} a list of "?"
-- for a batch of sequence numbers. Every time comparison uses the database clock, never the relay
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
