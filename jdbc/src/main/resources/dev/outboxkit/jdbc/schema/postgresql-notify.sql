-- Optional, PostgreSQL only: wake relays the moment events commit, instead of at their next poll.
-- A statement-level trigger sends one notification per appending statement on channel
-- "outbox_event"; relays built with listenForNotifications(true) listen on it.
-- Cost: PostgreSQL serialises the commits of notifying transactions, which limits append
-- throughput under many concurrent writers; see the benchmarks before enabling it.
CREATE OR REPLACE FUNCTION outbox_event_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('outbox_event', '');
    RETURN NULL;
END
$$;
DROP TRIGGER IF EXISTS outbox_event_notify ON outbox_event;
CREATE TRIGGER outbox_event_notify AFTER INSERT ON outbox_event
    FOR EACH STATEMENT EXECUTE FUNCTION outbox_event_notify();
