-- PostgreSQL 12+: partial indexes, UPDATE ... RETURNING claims in one statement, now() as the
-- clock. Statements not here are in common.sql; the format is explained there.

-- The inner SELECT walks the partial PENDING index in seq order and skips rows another relay
-- holds, so concurrent relays take disjoint batches without waiting on each other.
--
-- The scanning claims start at the relay's floor (claimFloor): naming every priority the CHECK
-- allows turns the walk into one index range per priority, each starting at (priority, :floor),
-- still in index order. So the entries of rows claimed before, which a held xmin horizon keeps in
-- the index, are never read.
-- name: claimUnordered
UPDATE {table} o
   SET status = 'IN_FLIGHT', lease_owner = :owner,
       lease_until = {now + :lease}
 WHERE o.seq = ANY (ARRAY(SELECT c.seq FROM {table} c
                  WHERE c.status = 'PENDING'
                    AND c.priority IN (9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9)
                    AND c.seq >= :floor AND c.available_at <= now()
                  ORDER BY c.priority DESC, c.seq
                  LIMIT :limit
                    FOR UPDATE SKIP LOCKED))
RETURNING {event_columns:o}, (o.expires_at <= now()) AS expired

-- Only the first unfinished event of each aggregate is claimable. The NOT EXISTS probe is
-- not locked (FOR UPDATE covers only the FROM list of its own level), so a head row another
-- relay holds still blocks its successors here. has_successor (one probe of the aggregate index
-- per head claimed) says whether a run may follow the head: a trickle of events, each alone in
-- its aggregate, then costs no run search.
-- Both aggregate probes are written so that no table statistics can plan them another way, as
-- statistics taken while the table was empty did (then 10,000 events arrived, each its own
-- aggregate: 200 ms a claim instead of 5). OFFSET 0 keeps the NOT EXISTS a probe per candidate
-- rather than a join over a whole index; has_successor states its status so that only the
-- aggregate index's predicate is implied, never the PENDING index's (a walk of every later PENDING
-- row per head).
-- name: claimOrdered
UPDATE {table} o
   SET status = 'IN_FLIGHT', lease_owner = :owner,
       lease_until = {now + :lease}
 WHERE o.seq = ANY (ARRAY(SELECT c.seq FROM {table} c
                  WHERE c.status = 'PENDING'
                    AND c.priority IN (9, 8, 7, 6, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9)
                    AND c.seq >= :floor AND c.available_at <= now()
                    AND NOT EXISTS (SELECT 1 FROM {table} p
                                     WHERE p.aggregate_type = c.aggregate_type
                                       AND p.aggregate_id = c.aggregate_id
                                       AND p.seq < c.seq
                                       AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                                    OFFSET 0)
                  ORDER BY c.priority DESC, c.seq
                  LIMIT :limit
                    FOR UPDATE SKIP LOCKED))
RETURNING {event_columns:o}, (o.expires_at <= now()) AS expired,
          EXISTS (SELECT 1 FROM {table} r
                   WHERE r.aggregate_type = o.aggregate_type AND r.aggregate_id = o.aggregate_id
                     AND r.seq > o.seq AND r.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                     AND r.status NOT IN ('IN_FLIGHT', 'DEAD')) AS has_successor

-- A loose index scan: each step of the recursion jumps to the next aggregate in the partial
-- aggregate index and reads its first unfinished row, the aggregate's head. Heads that are
-- PENDING and due are then locked like in claimOrdered. A head cannot stop being the head
-- between the two steps: the rows before it are finished, and finished is final.
-- name: claimOrderedSparse
WITH RECURSIVE heads AS (
    (SELECT aggregate_type, aggregate_id, seq, status, available_at FROM {table}
      WHERE status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
      ORDER BY aggregate_type, aggregate_id, seq
      LIMIT 1)
  UNION ALL
    SELECT n.aggregate_type, n.aggregate_id, n.seq, n.status, n.available_at
      FROM heads h
     CROSS JOIN LATERAL (SELECT x.aggregate_type, x.aggregate_id, x.seq, x.status,
                                x.available_at
                           FROM {table} x
                          WHERE x.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                            AND (x.aggregate_type, x.aggregate_id)
                                > (h.aggregate_type, h.aggregate_id)
                          ORDER BY x.aggregate_type, x.aggregate_id, x.seq
                          LIMIT 1) n
)
UPDATE {table} o
   SET status = 'IN_FLIGHT', lease_owner = :owner,
       lease_until = {now + :lease}
 WHERE o.seq IN (SELECT c.seq FROM {table} c
                  WHERE c.seq IN (SELECT seq FROM heads
                                   WHERE status = 'PENDING' AND available_at <= now())
                    AND c.status = 'PENDING'
                  ORDER BY c.priority DESC, c.seq
                  LIMIT :limit
                    FOR UPDATE SKIP LOCKED)
RETURNING {event_columns:o}, (o.expires_at <= now()) AS expired,
          EXISTS (SELECT 1 FROM {table} r
                   WHERE r.aggregate_type = o.aggregate_type AND r.aggregate_id = o.aggregate_id
                     AND r.seq > o.seq AND r.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                     AND r.status NOT IN ('IN_FLIGHT', 'DEAD')) AS has_successor

-- Where the scanning claims may start (ClaimFloor): the first PENDING event due within :ahead
-- microseconds, per priority one probe of the PENDING index, in ordered mode skipping events
-- behind a DEAD one of their aggregate (written, like has_successor, so that only the aggregate
-- index can answer); and the highest seq committed. :ordered is 1 or 0.
-- The priority is matched by = ANY, not =, and the order names it: with = and statistics of one
-- priority the planner walked the primary key in seq order for each probe (a filter over every
-- row: 50 ms over 10,000 PENDING events, not 0.1); this way only the claim index gives the order.
-- name: claimFloor
SELECT (SELECT min(f.seq) FROM generate_series(-9, 9) AS p(priority)
         CROSS JOIN LATERAL (SELECT x.seq FROM {table} x
                              WHERE x.status = 'PENDING' AND x.priority = ANY (ARRAY[p.priority])
                                AND x.available_at <= {now + :ahead}
                                AND (:ordered = 0
                                     OR NOT EXISTS (SELECT 1 FROM {table} d
                                                     WHERE d.aggregate_type = x.aggregate_type
                                                       AND d.aggregate_id = x.aggregate_id
                                                       AND d.seq < x.seq
                                                       AND d.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                                                       AND d.status NOT IN ('PENDING', 'IN_FLIGHT')
                                                    OFFSET 0))
                              ORDER BY x.priority DESC, x.seq LIMIT 1) f) AS first_due,
       (SELECT COALESCE(max(seq), 0) FROM {table}) AS last_seq

-- The statements that change rows found by seq test the rows' status in a form that
-- implies no partial index's predicate (PUBLISHED is in none), so that only the primary key can
-- find the rows. Written with = 'IN_FLIGHT' (or = 'PENDING'), the planner may walk the whole lease
-- (or claim) index instead, which looks cheap while statistics say it is small; but a held xmin
-- horizon keeps an entry there for every row version that ever matched: 120 ms an acknowledgement
-- of 100 rows over 300,000 such entries (317 ms a run's marking), against 0.2 ms by primary key.
-- name: markClaimed
UPDATE {table}
   SET status = 'IN_FLIGHT', lease_owner = :owner, lease_until = {now + :lease}
 WHERE seq IN (:seqs) AND status IN ('PENDING', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: markRetry
UPDATE {table}
   SET status = 'PENDING', available_at = {now + :delay},
       attempts = attempts + :charge, uncertain_sends = uncertain_sends + :uncertain,
       last_error = :error, lease_owner = NULL, lease_until = NULL
 WHERE seq = :seq AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: markDead
UPDATE {table}
   SET status = 'DEAD', attempts = attempts + 1, last_error = :error,
       uncertain_sends = uncertain_sends + :uncertain, published_at = {now},
       lease_owner = NULL, lease_until = NULL
 WHERE seq = :seq AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: markPublished
UPDATE {table}
   SET status = 'PUBLISHED', published_at = {now}, lease_owner = NULL, lease_until = NULL
 WHERE seq IN (:seqs) AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: markExpired
UPDATE {table}
   SET status = 'EXPIRED', published_at = {now}, lease_owner = NULL, lease_until = NULL
 WHERE seq IN (:seqs) AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: markHeld
UPDATE {table}
   SET status = 'PENDING', available_at = {now + :delay}, last_error = :error,
       lease_owner = NULL, lease_until = NULL
 WHERE seq IN (:seqs) AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: release
UPDATE {table}
   SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
 WHERE seq IN (:seqs) AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- name: deletePublished
DELETE FROM {table}
 WHERE seq IN (:seqs) AND lease_owner = :owner
   AND status IN ('IN_FLIGHT', 'PUBLISHED') AND status <> 'PUBLISHED'

-- The first statement of every transaction OutboxKit runs on its own connections (relay, admin,
-- inbox purge), one round trip, each setting transaction-local so the connection goes back to
-- the pool unchanged. :timeout_ms is the statement timeout in milliseconds, as text.
--
-- statement_timeout and lock_timeout cancel a statement (the connection stays usable), and
-- idle_in_transaction_session_timeout ends the session of a client that stopped talking mid
-- transaction (a dead network path: no FIN, no RST), releasing its row locks, which leases
-- cannot do for a claim that never committed.
--
-- These transactions also commit without waiting for the WAL flush (about 1 ms per commit on
-- ordinary disks, twice per relay batch, on the path from commit to publish). Safe for
-- at-least-once: a database crash can only lose the last few claims, acks, replays or purges,
-- so those events are claimed and sent again (or stay DEAD, or are purged next time); nothing
-- is marked PUBLISHED before the broker confirmed it, and the application's own commits stay
-- synchronous.
-- name: boundTransaction
SELECT set_config('synchronous_commit', 'off', true),
       set_config('statement_timeout', :timeout_ms, true),
       set_config('lock_timeout', :timeout_ms, true),
       set_config('idle_in_transaction_session_timeout', :timeout_ms, true)

-- Pins the scanning claims to their cheap plan: walk the PENDING index in seq order, probe each
-- row's aggregate by index, stop at the LIMIT, then find the claimed rows by primary key (the
-- ARRAY() is computed once). With stale statistics (a new or truncated table that suddenly holds
-- a backlog) the planner otherwise picks a bitmap scan, a hash anti-join over every unfinished row
-- and a sort: O(backlog) per claim. And a plan the driver prepared while the table held a few
-- rows, which the server keeps for the statement, read the whole table for every claim ten
-- minutes later (a sequential scan per candidate): no claim wants a sequential scan.
-- A claim transaction's statements also keep one generic plan each (per connection, once the
-- driver prepares them on the server), planned once instead of at every claim: a custom plan for
-- the runs behind ten heads (ten probes, each with two NOT EXISTS) took 7 ms to make and 1 ms to
-- run. The pins above are what make a generic plan safe here, whatever the statistics.
-- The settings are transaction-local, so the connection goes back to the pool unchanged.
-- name: beforeClaim
SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_sort', 'off', true),
       set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true),
       set_config('enable_seqscan', 'off', true),
       set_config('plan_cache_mode', 'force_generic_plan', true)

-- The sparse claim sorts the heads it found, and may join them as it sees fit, but reads no table
-- whole: then it, the runs behind its heads and their marking keep their plans like the scanning
-- claims do.
-- name: beforeSparseClaim
SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true),
       set_config('plan_cache_mode', 'force_generic_plan', true)

-- The oldest PENDING row: the claim index is in priority order, so one probe per priority (the
-- table's CHECK keeps them within -9 to 9) finds each priority's first seq, and the least of them
-- is the oldest. Nineteen index probes, however deep the backlog or long the history.
-- name: oldestPending
SELECT (SELECT o.occurred_at FROM {table} o
         WHERE o.seq = (SELECT min(f.seq) FROM generate_series(-9, 9) AS p(priority)
                         CROSS JOIN LATERAL (SELECT x.seq FROM {table} x
                                              WHERE x.status = 'PENDING'
                                                AND x.priority = p.priority
                                              ORDER BY x.seq LIMIT 1) f)) AS oldest,
       now() AS db_now

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT COUNT(*) FROM {table} WHERE status = 'CANCELLED') AS cancelled,
       (SELECT COUNT(*) FROM {table} WHERE status = 'SUPERSEDED') AS superseded,
       (SELECT o.occurred_at FROM {table} o
         WHERE o.seq = (SELECT min(f.seq) FROM generate_series(-9, 9) AS p(priority)
                         CROSS JOIN LATERAL (SELECT x.seq FROM {table} x
                                              WHERE x.status = 'PENDING'
                                                AND x.priority = p.priority
                                              ORDER BY x.seq LIMIT 1) f)) AS oldest,
       now() AS db_now

-- name: inboxInsert
INSERT INTO {table} (consumer, event_id, processed_at) VALUES (:consumer, :event_id, now())
ON CONFLICT DO NOTHING

-- name: inboxPurge
DELETE FROM {table}
 WHERE ctid IN (SELECT ctid FROM {table}
                 WHERE processed_at < {now - :age}
                 LIMIT :limit)

-- ON CONFLICT DO NOTHING waits for a concurrent insert of the same row, then does nothing if it
-- committed; it takes no lock on an existing row (inboxVersionLock does). A failed statement
-- would abort the consumer's transaction, so a duplicate must not fail here.
-- name: inboxVersionCreate
INSERT INTO {table} (consumer, aggregate_type, aggregate_id, version, updated_at)
VALUES (:consumer, :aggregate_type, :aggregate_id, 0, now())
ON CONFLICT DO NOTHING
