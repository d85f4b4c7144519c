-- OutboxKit statements that read the same on most databases: every dialect starts from these
-- (SqlDialect.builder) and overrides what its database reads differently.
--
-- Each statement starts at a "-- name: <statement>" line and runs to the next one; other whole-line
-- comments are dropped when loading. A vendor file (postgresql.sql, mysql.sql for MySQL and MariaDB,
-- h2.sql) holds the statements that differ for that vendor: a name it defines replaces the one here.
-- Parameters are named (:owner); each statement's parameters are fixed by OutboxKit (the Statements
-- class), so an override may order them as its database needs but never take others; :seqs is a
-- list of row seqs. Placeholders: {table} is the validated, possibly schema-qualified table name;
-- {written_columns} and {written_values} the columns an append binds and their parameters;
-- {event_columns} (or {event_columns:c}, qualified by alias c) the columns a claim reads an event
-- from (both lists are named once, in EventRows, so that a new column is its DDL plus that class);
-- {now} is the database's current time, {now + :p} and {now - :p} that time moved by parameter :p,
-- whole microseconds; {rows :p} the dialect's row limit clause (LIMIT, FETCH FIRST). Every time
-- comparison uses the database clock, never the relay host's. The relay's acknowledgements are
-- fenced: they change a row only while this relay owns it (lease_owner = :owner, IN_FLIGHT).
-- Result columns that are flags (expired, due, head, old) are 1 or 0.

-- name: insert
INSERT INTO {table} ({written_columns}, available_at)
VALUES ({written_values}, {now + :delay})

-- Withdrawing waiting events in the caller's transaction reads their seqs without locks, then
-- updates them by primary key, re-checking the status: so it locks only the rows it withdraws, never
-- a range of the aggregate index (which, under MySQL's REPEATABLE READ, would block a relay marking
-- rows of that aggregate and deadlock with it), and a row a relay claimed meanwhile is left alone.
-- Under REPEATABLE READ the read sees the transaction's snapshot: an event committed after it
-- began is not withdrawn.

-- An appended event with a supersede key withdraws the earlier events of its aggregate with that
-- key which are still waiting; one a relay holds is sent anyway. The aggregate index finds them.
-- name: supersedeCandidates
SELECT seq FROM {table}
 WHERE aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id
   AND supersede_key = :supersede_key AND status IN ('PENDING', 'DEAD') AND id <> :id
 ORDER BY seq

-- name: waitingOfAggregate
SELECT seq FROM {table}
 WHERE aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id
   AND status IN ('PENDING', 'DEAD')
 ORDER BY seq

-- :status is CANCELLED or SUPERSEDED.
-- name: withdraw
UPDATE {table}
   SET status = :status, published_at = {now}, last_error = :reason
 WHERE seq IN (:seqs) AND status IN ('PENDING', 'DEAD')

-- Withdraws one event by its unique id (a lock on that row alone). The update waits for a relay's
-- short claim transaction and then finds the row claimed, so a cancel and a claim never both win.
-- name: cancel
UPDATE {table}
   SET status = 'CANCELLED', published_at = {now}, last_error = :reason
 WHERE id = :id AND status IN ('PENDING', 'DEAD')

-- name: eventStatus
SELECT status FROM {table} WHERE id = :id

-- name: countInFlightOfAggregate
SELECT COUNT(*) FROM {table}
 WHERE aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id AND status = 'IN_FLIGHT'

-- name: markClaimed
UPDATE {table}
   SET status = 'IN_FLIGHT', lease_owner = :owner, lease_until = {now + :lease}
 WHERE seq IN (:seqs) AND status = 'PENDING'

-- :charge and :uncertain are 1 or 0: whether the attempt is charged, whether it may have arrived.
-- name: markRetry
UPDATE {table}
   SET status = 'PENDING', available_at = {now + :delay},
       attempts = attempts + :charge, uncertain_sends = uncertain_sends + :uncertain,
       last_error = :error, lease_owner = NULL, lease_until = NULL
 WHERE seq = :seq AND lease_owner = :owner AND status = 'IN_FLIGHT'

-- An outage of one destination: its events of the round go back to PENDING together, uncharged.
-- name: markHeld
UPDATE {table}
   SET status = 'PENDING', available_at = {now + :delay}, last_error = :error,
       lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = :owner AND status = 'IN_FLIGHT' AND seq IN (:seqs)

-- name: oldestPending
SELECT (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq {rows 1})
         AS oldest,
       {now} AS db_now
  {from_one_row}

-- name: snapshot
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} WHERE status = 'IN_FLIGHT') AS in_flight,
       (SELECT COUNT(*) FROM {table} WHERE status = 'DEAD') AS dead,
       (SELECT COUNT(*) FROM {table} WHERE status = 'CANCELLED') AS cancelled,
       (SELECT COUNT(*) FROM {table} WHERE status = 'SUPERSEDED') AS superseded,
       (SELECT occurred_at FROM {table} WHERE status = 'PENDING' ORDER BY seq {rows 1})
         AS oldest,
       {now} AS db_now
  {from_one_row}

-- What OutboxRelay.drainUntilDone still waits for: PENDING rows (all of them; those behind an
-- earlier DEAD row of their aggregate, which ordered mode never delivers; those due within the
-- bound microseconds, with and without the ones behind DEAD).
-- name: drainLeft
SELECT (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING') AS pending,
       (SELECT COUNT(*) FROM {table} p WHERE p.status = 'PENDING'
           AND EXISTS (SELECT 1 FROM {table} d
                        WHERE d.aggregate_type = p.aggregate_type
                          AND d.aggregate_id = p.aggregate_id
                          AND d.status = 'DEAD' AND d.seq < p.seq)) AS behind_dead,
       (SELECT COUNT(*) FROM {table} WHERE status = 'PENDING' AND available_at <= {now + :within})
         AS due,
       (SELECT COUNT(*) FROM {table} p WHERE p.status = 'PENDING'
           AND p.available_at <= {now + :within}
           AND NOT EXISTS (SELECT 1 FROM {table} d
                            WHERE d.aggregate_type = p.aggregate_type
                              AND d.aggregate_id = p.aggregate_id
                              AND d.status = 'DEAD' AND d.seq < p.seq)) AS due_not_behind
  {from_one_row}

-- Retention walks the primary key in windows (index-driven, whatever the table holds) and reads
-- without locking; old = 1 marks a row past its retention. :finished_on and :dead_on are 1 or 0,
-- their ages the retentions in micros. published_at is when the row finished: PUBLISHED, EXPIRED,
-- CANCELLED, SUPERSEDED or DEAD.
-- name: retentionWindow
SELECT seq,
       CASE WHEN (:finished_on = 1
                  AND status IN ('PUBLISHED', 'EXPIRED', 'CANCELLED', 'SUPERSEDED')
                  AND published_at < {now - :finished_age})
              OR (:dead_on = 1 AND status = 'DEAD' AND published_at < {now - :dead_age})
            THEN 1 ELSE 0 END AS old
  FROM {table}
 WHERE seq > :after
 ORDER BY seq
 {rows :limit}

-- Deletes the window's old rows by primary key (so it locks only them), checking again that they
-- are still past retention (a DEAD row may have been replayed since).
-- name: purgeRetained
DELETE FROM {table}
 WHERE seq IN (:seqs)
   AND ((:finished_on = 1 AND status IN ('PUBLISHED', 'EXPIRED', 'CANCELLED', 'SUPERSEDED')
         AND published_at < {now - :finished_age})
        OR (:dead_on = 1 AND status = 'DEAD' AND published_at < {now - :dead_age}))

-- name: deletePublished
DELETE FROM {table}
 WHERE lease_owner = :owner AND status = 'IN_FLIGHT' AND seq IN (:seqs)

-- name: release
UPDATE {table}
   SET status = 'PENDING', lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = :owner AND status = 'IN_FLIGHT' AND seq IN (:seqs)

-- name: countStatus
SELECT COUNT(*) FROM {table} WHERE status = :status

-- name: countByStatus
SELECT status, COUNT(*) AS n FROM {table} GROUP BY status

-- name: listDead
SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, uncertain_sends, last_error,
       occurred_at, destination, published_at
  FROM {table}
 WHERE status = 'DEAD' AND seq > :after
 ORDER BY seq
 {rows :limit}

-- name: discardDead
DELETE FROM {table} WHERE id = :id AND status = 'DEAD'

-- Both lease statements read only the leases that ran out within the last :window microseconds
-- (the relay's recoveries read what the one before did not, and every lease now and then with a
-- window of a century), so that they do not grow with the lease index, which a long transaction
-- elsewhere fills with entries of rows long finished. A dialect may leave the window out.
-- An event whose lease ran out so often that it is the likely reason the relays holding it
-- died (a poison message that crashes or hangs the sender) is quarantined, not claimed again.
-- name: quarantineLostLeases
UPDATE {table}
   SET status = 'DEAD', last_error = :error, published_at = {now}, lease_owner = NULL,
       lease_until = NULL, lease_losses = lease_losses + 1
 WHERE status = 'IN_FLIGHT' AND lease_until <= {now} AND lease_until > {now - :window}
   AND lease_losses + 1 >= :max_losses

-- A lost lease is not the event's failure: attempts stay as they were, the loss is counted apart.
-- name: reclaimExpiredLeases
UPDATE {table}
   SET status = 'PENDING', lease_owner = NULL, lease_until = NULL,
       lease_losses = lease_losses + 1
 WHERE status = 'IN_FLIGHT' AND lease_until <= {now} AND lease_until > {now - :window}

-- name: markPublished
UPDATE {table}
   SET status = 'PUBLISHED', published_at = {now}, lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = :owner AND status = 'IN_FLIGHT' AND seq IN (:seqs)

-- name: markExpired
UPDATE {table}
   SET status = 'EXPIRED', published_at = {now}, lease_owner = NULL, lease_until = NULL
 WHERE lease_owner = :owner AND status = 'IN_FLIGHT' AND seq IN (:seqs)

-- name: markDead
UPDATE {table}
   SET status = 'DEAD', attempts = attempts + 1, last_error = :error,
       uncertain_sends = uncertain_sends + :uncertain, published_at = {now},
       lease_owner = NULL, lease_until = NULL
 WHERE seq = :seq AND lease_owner = :owner AND status = 'IN_FLIGHT'

-- name: replayDead
UPDATE {table}
   SET status = 'PENDING', attempts = 0, lease_losses = 0, available_at = {now}, last_error = NULL,
       published_at = NULL
 WHERE id = :id AND status = 'DEAD'

-- name: replayAllDead
UPDATE {table}
   SET status = 'PENDING', attempts = 0, lease_losses = 0, available_at = {now}, last_error = NULL,
       published_at = NULL
 WHERE status = 'DEAD'

-- The operator's views (OutboxAdmin's inspection methods, the console). Each reads a bounded
-- number of rows through the indexes of live rows, or a window of the primary key, never the
-- PUBLISHED history. Flags (:any_*) are 1 to match any value, so no parameter is ever a typed NULL.
-- The backlog is grouped over the next :sample PENDING events in claim order (the claim index):
-- by destination, event type and tenant, with those held back because their destination said it
-- was down (the relay's note starts with :note_prefix and names since when).
-- name: liveGroups
SELECT destination, event_type, tenant, COUNT(*) AS n, MIN(occurred_at) AS oldest,
       SUM(CASE WHEN available_at > {now} THEN 1 ELSE 0 END) AS not_due,
       SUM(CASE WHEN last_error LIKE :note_prefix THEN 1 ELSE 0 END) AS held,
       MIN(CASE WHEN last_error LIKE :note_prefix THEN last_error END) AS first_note,
       MAX(CASE WHEN last_error LIKE :note_prefix THEN available_at END) AS held_until
  FROM (SELECT destination, event_type, tenant, occurred_at, available_at, last_error
          FROM {table}
         WHERE status = 'PENDING'
         ORDER BY priority DESC, seq
         {rows :sample}) w
 GROUP BY destination, event_type, tenant
 ORDER BY COUNT(*) DESC, destination, event_type, tenant
 {rows :limit}

-- name: leaseHolders
SELECT lease_owner, COUNT(*) AS n, MIN(lease_until) AS first_until, MAX(lease_until) AS last_until
  FROM {table}
 WHERE status = 'IN_FLIGHT'
 GROUP BY lease_owner
 ORDER BY COUNT(*) DESC, lease_owner
 {rows :limit}

-- Recent throughput: among the newest rows by seq (a window of the primary key), the PUBLISHED
-- ones that finished within the window, per destination; before_window counts the rows that
-- occurred before it, so the caller knows whether the rows read reach back that far.
-- name: recentPublished
SELECT destination,
       SUM(CASE WHEN status = 'PUBLISHED' AND published_at >= {now - :window} THEN 1 ELSE 0 END)
         AS published,
       COUNT(*) AS n,
       SUM(CASE WHEN occurred_at < {now - :window} THEN 1 ELSE 0 END) AS before_window
  FROM (SELECT destination, status, occurred_at, published_at
          FROM {table}
         ORDER BY seq DESC
         {rows :limit}) r
 GROUP BY destination

-- name: findDead
SELECT seq, id, aggregate_type, aggregate_id, event_type, attempts, uncertain_sends, last_error,
       occurred_at, destination, published_at
  FROM {table}
 WHERE status = 'DEAD' AND seq > :after
   AND (:any_destination = 1 OR destination = :destination)
   AND (:any_event_type = 1 OR event_type = :event_type)
   AND (:any_aggregate_type = 1 OR aggregate_type = :aggregate_type)
   AND (:any_aggregate_id = 1 OR aggregate_id = :aggregate_id)
   AND published_at >= :dead_from AND published_at < :dead_to
 ORDER BY seq
 {rows :limit}

-- name: findEvent
SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination, tenant,
       content_type, occurred_at, available_at, expires_at, status, attempts, uncertain_sends,
       lease_losses, last_error, published_at, lease_owner, lease_until, aggregate_version,
       supersede_key, priority, headers, payload
  FROM {table}
 WHERE id = :id

-- The events of one aggregate that are not finished, in order: the aggregate index holds them.
-- name: liveOfAggregate
SELECT seq, id, aggregate_type, aggregate_id, event_type, schema_version, destination, tenant,
       content_type, occurred_at, available_at, expires_at, status, attempts, uncertain_sends,
       lease_losses, last_error, published_at, lease_owner, lease_until, aggregate_version,
       supersede_key, priority, headers
  FROM {table}
 WHERE aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id
   AND status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
 ORDER BY seq
 {rows :limit}

-- name: replayDeadSeqs
UPDATE {table}
   SET status = 'PENDING', attempts = 0, lease_losses = 0, available_at = {now}, last_error = NULL,
       published_at = NULL
 WHERE status = 'DEAD' AND seq IN (:seqs)

-- name: discardDeadSeqs
DELETE FROM {table} WHERE status = 'DEAD' AND seq IN (:seqs)

-- name: databaseNow
SELECT {now} AS db_now {from_one_row}

-- A run: an aggregate's PENDING events after its head (which this claim holds), up to the first
-- IN_FLIGHT or DEAD one; the caller stops at the first that is not due. A non-locking read: no
-- other relay can claim these rows while the head is held, since each is blocked by the head.
-- One part per head, joined by UNION ALL; each reads at most its row limit from the aggregate
-- index.
-- name: runSuccessors
(SELECT {event_columns:c},
        CASE WHEN c.expires_at <= {now} THEN 1 ELSE 0 END AS expired,
        CASE WHEN c.available_at <= {now} THEN 1 ELSE 0 END AS due
   FROM {table} c
  WHERE c.aggregate_type = :aggregate_type AND c.aggregate_id = :aggregate_id
    AND c.status = 'PENDING' AND c.seq > :head
    AND NOT EXISTS (SELECT 1 FROM {table} p
                     WHERE p.aggregate_type = c.aggregate_type
                       AND p.aggregate_id = c.aggregate_id
                       AND p.status = 'IN_FLIGHT' AND p.seq > :head AND p.seq < c.seq)
    AND NOT EXISTS (SELECT 1 FROM {table} p
                     WHERE p.aggregate_type = c.aggregate_type
                       AND p.aggregate_id = c.aggregate_id
                       AND p.status = 'DEAD' AND p.seq > :head AND p.seq < c.seq)
  ORDER BY c.seq
  {rows :limit})

-- The claim by SKIP_LOCKED (a plain read of candidates, a locking read that re-checks them and
-- skips rows other relays hold, an update: ClaimCapability), for databases whose locking read
-- may carry a row limit and subqueries (H2; PostgreSQL can run it too, MySQL overrides it).

-- name: lockUnordered
SELECT {event_columns}, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table}
 WHERE status = 'PENDING' AND available_at <= {now}
 ORDER BY priority DESC, seq
 {rows :limit}
   FOR UPDATE SKIP LOCKED

-- A consistent (non-locking) read. A candidate qualifies only if every earlier event of its
-- aggregate is finished (PUBLISHED, EXPIRED, CANCELLED or SUPERSEDED), states no row ever leaves, so a candidate never
-- turns out to be out of order once claimed. That needs a read from one snapshot: where reads
-- have none (Derby; SQL Server under locking READ COMMITTED) a row moving between statuses while
-- the probe runs can slip past it, and the probe must walk the aggregate by seq instead (see the
-- Derby example's derby.sql).
-- name: orderedCandidates
SELECT c.seq FROM {table} c
 WHERE c.status = 'PENDING' AND c.available_at <= {now}
   AND NOT EXISTS (SELECT 1 FROM {table} p
                    WHERE p.aggregate_type = c.aggregate_type
                      AND p.aggregate_id = c.aggregate_id
                      AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                      AND p.seq < c.seq)
 ORDER BY c.priority DESC, c.seq
 {rows :limit}

-- The first due PENDING rows (a bounded read, however deep the backlog), each with whether it
-- qualifies as above: with a hot aggregate or few aggregates the heads are found without reading
-- the whole backlog, and a window of heads only, not full, shows there is no run behind them.
-- name: orderedCandidatesInWindow
SELECT c.seq,
       CASE WHEN NOT EXISTS (SELECT 1 FROM {table} p
                              WHERE p.aggregate_type = c.aggregate_type
                                AND p.aggregate_id = c.aggregate_id
                                AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD')
                                AND p.seq < c.seq)
            THEN 1 ELSE 0 END AS head
  FROM (SELECT w.seq, w.priority, w.aggregate_type, w.aggregate_id FROM {table} w
         WHERE w.status = 'PENDING' AND w.available_at <= {now}
         ORDER BY w.priority DESC, w.seq
         {rows :limit}) c
 ORDER BY c.priority DESC, c.seq

-- name: lockCandidates
SELECT {event_columns}, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table}
 WHERE seq IN (:seqs) AND status = 'PENDING' AND available_at <= {now}
 ORDER BY priority DESC, seq
 {rows :limit}
   FOR UPDATE SKIP LOCKED

-- The claim by CONDITIONAL_UPDATE, for databases without SKIP LOCKED: candidates read without
-- locks (orderedCandidates and orderedCandidatesInWindow above in ordered mode), an update whose
-- row count decides what was claimed (a relay that meets a row another relay is claiming waits
-- for that short transaction, then finds it taken), and a read of what this owner now holds.

-- Candidates come in claim order, priority then seq; a window starts after the last one of the
-- window before (:after_priority, :after).
-- name: unorderedCandidates
SELECT seq, priority FROM {table}
 WHERE status = 'PENDING' AND available_at <= {now}
   AND (priority < :after_priority OR (priority = :after_priority AND seq > :after))
 ORDER BY priority DESC, seq
 {rows :limit}

-- name: markClaimedIfDue
UPDATE {table}
   SET status = 'IN_FLIGHT', lease_owner = :owner, lease_until = {now + :lease}
 WHERE seq IN (:seqs) AND status = 'PENDING' AND available_at <= {now}

-- name: readClaimed
SELECT {event_columns}, CASE WHEN expires_at <= {now} THEN 1 ELSE 0 END AS expired
  FROM {table}
 WHERE seq IN (:seqs) AND lease_owner = :owner AND status = 'IN_FLIGHT'
 ORDER BY seq

-- The inbox's ordering guard (Inbox.accept), in the consumer's transaction. The event id is
-- recorded first (inboxInsert); an event held back for a gap has its row taken out again by
-- primary key, so nothing of it is left.
-- name: inboxDelete
DELETE FROM {table} WHERE consumer = :consumer AND event_id = :event_id

-- The version table's row of one (consumer, aggregate), made beforehand by inboxVersionCreate
-- (each vendor's own: an insert that ignores a duplicate). A locking read by primary key of a row
-- that exists: it locks that row alone (under MySQL's REPEATABLE READ, a locking read of a missing
-- row would lock the gap, and two first deliveries of an aggregate would deadlock inserting into
-- it), and it reads the latest committed version, whatever the transaction's snapshot. Two
-- deliveries of one aggregate wait here for each other. Version 0: none applied yet.
-- name: inboxVersionLock
SELECT version FROM {table}
 WHERE consumer = :consumer AND aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id
   FOR UPDATE

-- name: inboxVersionSet
UPDATE {table}
   SET version = :version, updated_at = {now}
 WHERE consumer = :consumer AND aggregate_type = :aggregate_type AND aggregate_id = :aggregate_id
