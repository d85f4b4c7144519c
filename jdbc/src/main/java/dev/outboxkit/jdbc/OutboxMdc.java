package dev.outboxkit.jdbc;

/**
 * The slf4j {@link org.slf4j.MDC} keys a relay sets while it works on one event, so log lines of
 * the relay, of the transport and of a {@link RelayListener} can be tied to the event. Values are
 * identifiers only, never payloads or header values. Line breaks and other control characters in
 * them (possible in rows written by other tools) appear as visible escapes such as {@code \n}, so a
 * value printed by a pattern layout cannot start a line of its own.
 *
 * <p>When they are set, on the thread doing the work:
 *
 * <ul>
 *   <li>around the transport call when the batch holds one event, and around each event's call when
 *       the relay sends events one at a time ({@link
 *       OutboxRelay.Builder#sendIndividually(boolean)}). A transport that pipelines a batch of
 *       several events in one {@code sendBatch} call gets no per-event keys (there is no single
 *       current event); its own per-event log lines should name the event id;
 *   <li>around the relay's per-event log lines (retry, DEAD) and its calls of {@link
 *       RelayListener#retried}, {@link RelayListener#dead} and {@link RelayListener#expired}.
 * </ul>
 *
 * <p>They are removed (or earlier values restored) right after, so nothing leaks to the next event
 * or to the next task of a pooled thread. A logging pattern such as {@code %X{outbox.event_id}}
 * prints them.
 */
public final class OutboxMdc {
  /** The event id, a UUID: {@value}. */
  public static final String EVENT_ID = "outbox.event_id";

  /** The event's aggregate type: {@value}. */
  public static final String AGGREGATE_TYPE = "outbox.aggregate_type";

  /** The event's aggregate id: {@value}. */
  public static final String AGGREGATE_ID = "outbox.aggregate_id";

  /** The event type: {@value}. */
  public static final String EVENT_TYPE = "outbox.event_type";

  private OutboxMdc() {}
}
