package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.internal.LogText;
import dev.outboxkit.jdbc.OutboxMdc;
import org.slf4j.MDC;

/**
 * Puts one event's identifiers into the MDC (keys of {@link OutboxMdc}; text escaped by {@link
 * LogText}) until closed, then puts back what was there before, so scopes nest and a pooled thread
 * is left as it was found.
 */
final class EventMdc implements AutoCloseable {
  private static final String[] KEYS = {
    OutboxMdc.EVENT_ID, OutboxMdc.AGGREGATE_TYPE, OutboxMdc.AGGREGATE_ID, OutboxMdc.EVENT_TYPE
  };

  private final String[] previous = new String[KEYS.length];

  private EventMdc(OutboxEvent event) {
    // Escaped: a pattern layout prints MDC values raw, and a row written by another tool may hold
    // line breaks. Ordinary values are unchanged.
    String[] values = {
      event.id().toString(),
      LogText.escape(event.aggregateType()),
      LogText.escape(event.aggregateId()),
      LogText.escape(event.eventType())
    };
    for (int i = 0; i < KEYS.length; i++) {
      previous[i] = MDC.get(KEYS[i]);
      MDC.put(KEYS[i], values[i]);
    }
  }

  /** Opens a scope for this event; close it in a finally block (try-with-resources). */
  public static EventMdc of(OutboxEvent event) {
    return new EventMdc(event);
  }

  /** Runs {@code action} with the event's identifiers in the MDC. */
  public static Runnable around(OutboxEvent event, Runnable action) {
    return () -> {
      EventMdc scope = of(event);
      try {
        action.run();
      } finally {
        scope.close();
      }
    };
  }

  @Override
  public void close() {
    for (int i = 0; i < KEYS.length; i++) {
      if (previous[i] == null) {
        MDC.remove(KEYS[i]);
      } else {
        MDC.put(KEYS[i], previous[i]);
      }
    }
  }
}
