-- Microsoft SQL Server 2017+ (preview: not run against a real SQL Server by this project's CI).
-- Times are DATETIME2(6) holding UTC, compared with SYSUTCDATETIME(). The trailing row limit of
-- common.sql is OFFSET 0 ROWS FETCH NEXT n ROWS ONLY (valid after an ORDER BY, also in a
-- subquery); the statements here put TOP (:limit) in front instead, which named parameters allow.
--
-- Claims run in steps (plain read, locking re-check, update), with the table hints
-- UPDLOCK, READPAST, ROWLOCK as SQL Server's FOR UPDATE SKIP LOCKED: update locks held to the end
-- of the transaction, rows another transaction locked skipped, row locks rather than page locks.
-- Not an UPDATE ... OUTPUT claim: OUTPUT returns rows in no defined order (a batch must come in seq
-- order), cannot carry a subquery (has_successor), and fails on a table with an enabled trigger
-- unless it writes INTO a table.
--
-- A hint applies to its own table reference only, so the NOT EXISTS probes of the ordered reads
-- lock nothing. Under the default locking READ COMMITTED a plain read waits for rows another relay
-- is updating (a claim's or an acknowledgement's short transaction); with READ_COMMITTED_SNAPSHOT
-- on it reads the last committed version instead. Statements not here are in common.sql.

-- name: lockUnordered
SELECT TOP (:limit) {event_columns}, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table} WITH (UPDLOCK, READPAST, ROWLOCK)
 WHERE status = 'PENDING' AND available_at <= {now}
 ORDER BY priority DESC, seq

-- A candidate qualifies only if every earlier event of its aggregate is finished (PUBLISHED,
-- EXPIRED, CANCELLED or SUPERSEDED), states no row ever leaves.
-- name: orderedCandidates
SELECT TOP (:limit) c.seq FROM {table} c
 WHERE c.status = 'PENDING' AND c.available_at <= {now}
   AND NOT EXISTS (SELECT 1 FROM {table} p
                    WHERE p.aggregate_type = c.aggregate_type
                      AND p.aggregate_id = c.aggregate_id
                      AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                      AND p.seq < c.seq)
 ORDER BY c.priority DESC, c.seq

-- The first due PENDING rows, each with whether it qualifies as above (head 1 or 0).
-- name: orderedCandidatesInWindow
SELECT c.seq,
       CASE WHEN NOT EXISTS (SELECT 1 FROM {table} p
                              WHERE p.aggregate_type = c.aggregate_type
                                AND p.aggregate_id = c.aggregate_id
                                AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                                AND p.seq < c.seq)
            THEN 1 ELSE 0 END AS head
  FROM (SELECT TOP (:limit) w.seq, w.priority, w.aggregate_type, w.aggregate_id FROM {table} w
         WHERE w.status = 'PENDING' AND w.available_at <= {now}
         ORDER BY w.priority DESC, w.seq) c
 ORDER BY c.priority DESC, c.seq

-- name: lockCandidates
SELECT TOP (:limit) {event_columns}, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table} WITH (UPDLOCK, READPAST, ROWLOCK)
 WHERE seq IN (:seqs) AND status = 'PENDING' AND available_at <= {now}
 ORDER BY priority DESC, seq

-- SQL Server refuses an ORDER BY in a query joined by UNION ALL, parenthesised or not, so the
-- ordered part is a derived table, and the order of the joined result is not defined. So this
-- part returns only the run's due prefix (due is always 1): a PENDING row that is not due yet ends
-- the run like an IN_FLIGHT or DEAD one, here in SQL rather than by the reader meeting it first.
-- name: runSuccessors
(SELECT r.* FROM
   (SELECT TOP (:limit) {event_columns:c},
           CASE WHEN c.expires_at <= {now} THEN 1 ELSE 0 END AS expired, 1 AS due
      FROM {table} c
     WHERE c.aggregate_type = :aggregate_type AND c.aggregate_id = :aggregate_id
       AND c.status = 'PENDING' AND c.seq > :head AND c.available_at <= {now}
       AND NOT EXISTS (SELECT 1 FROM {table} p
                        WHERE p.aggregate_type = c.aggregate_type
                          AND p.aggregate_id = c.aggregate_id
                          AND p.seq > :head AND p.seq < c.seq
                          AND (p.status IN ('IN_FLIGHT', 'DEAD')
                               OR (p.status = 'PENDING' AND p.available_at > {now})))
     ORDER BY c.seq) r)

-- UPDLOCK, HOLDLOCK take a key-range update lock on the pair even when it is absent, so two
-- consumers inserting the same pair run one after the other: the second sees the first's row
-- (once committed) and inserts nothing. Reads the latest committed row under snapshot settings
-- too, since UPDLOCK makes it a locking read.
-- name: inboxInsert
INSERT INTO {table} (consumer, event_id, processed_at)
SELECT :consumer, :event_id, {now}
 WHERE NOT EXISTS (SELECT 1 FROM {table} WITH (UPDLOCK, HOLDLOCK)
                    WHERE consumer = :consumer AND event_id = :event_id)

-- name: inboxPurge
DELETE TOP (:limit) FROM {table}
 WHERE processed_at < {now - :age}

-- As inboxInsert: UPDLOCK, HOLDLOCK serialise two inserts of the same row. Update locks do not
-- share with each other, so two deliveries never both hold a lock they then want to upgrade.
-- name: inboxVersionCreate
INSERT INTO {table} (consumer, aggregate_type, aggregate_id, version, updated_at)
SELECT :consumer, :aggregate_type, :aggregate_id, 0, {now}
 WHERE NOT EXISTS (SELECT 1 FROM {table} WITH (UPDLOCK, HOLDLOCK)
                    WHERE consumer = :consumer AND aggregate_type = :aggregate_type
                      AND aggregate_id = :aggregate_id)

-- SQL Server has no FOR UPDATE on a plain SELECT: UPDLOCK holds an update lock on the row to the
-- end of the transaction and reads the latest committed version; ROWLOCK keeps it to the row.
-- name: inboxVersionLock
SELECT version FROM {table} WITH (UPDLOCK, ROWLOCK)
 WHERE consumer = :consumer AND aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id
