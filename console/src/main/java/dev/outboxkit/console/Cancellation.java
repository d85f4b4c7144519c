package dev.outboxkit.console;

import dev.outboxkit.jdbc.AggregateCancellation;
import dev.outboxkit.jdbc.CancelOutcome;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.StoredEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Withdrawing waiting events as an operator: one event ({@code event=<id>}) or every waiting event
 * of an aggregate ({@code type} and {@code id}), with the reason stored on each. A PENDING or DEAD
 * event becomes CANCELLED and is never sent; one a relay holds is left alone.
 */
final class Cancellation {
  static final String REASON = "cancelReason";

  private final UUID event;
  private final String aggregateType;
  private final String aggregateId;
  final String reason;

  private Cancellation(UUID event, String aggregateType, String aggregateId, String reason) {
    this.event = event;
    this.aggregateType = aggregateType;
    this.aggregateId = aggregateId;
    this.reason = reason;
  }

  /**
   * {@return the cancellation the parameters describe}
   *
   * @throws IllegalArgumentException naming what is missing or wrong
   */
  static Cancellation from(ConsoleExchange ex) {
    String reason = ex.parameter(REASON);
    if (reason == null || reason.isBlank() || reason.length() > 1000) {
      throw new IllegalArgumentException(
          "parameter " + REASON + " must say why, in 1 to 1000 characters");
    }
    String event = ex.parameter("event");
    if (event != null) {
      try {
        return new Cancellation(UUID.fromString(event), null, null, reason.trim());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("parameter event must be an event id (a UUID)");
      }
    }
    String type = ex.parameter("type");
    String id = ex.parameter("id");
    if (type == null || type.isEmpty() || id == null || id.isEmpty()) {
      throw new IllegalArgumentException(
          "name the event (parameter event) or the aggregate (parameters type and id)");
    }
    return new Cancellation(null, type, id, reason.trim());
  }

  /** {@return the parameters that describe it, for the confirmation form} */
  Map<String, String> parameters() {
    Map<String, String> p = new LinkedHashMap<>();
    if (event != null) {
      p.put("event", event.toString());
    } else {
      p.put("type", aggregateType);
      p.put("id", aggregateId);
    }
    p.put(REASON, reason);
    return p;
  }

  /** {@return what it withdraws, as an operator reads it} */
  String describe() {
    return (event != null
            ? "event " + event
            : "the waiting events of aggregate " + aggregateType + " / " + aggregateId)
        + ", because: "
        + reason;
  }

  /** {@return where to look afterwards, below the console mounted at {@code base}} */
  String page(String base) {
    if (event != null) {
      return Html.url(base, "/events/" + event, Map.of());
    }
    Map<String, String> q = new LinkedHashMap<>();
    q.put("type", aggregateType);
    q.put("id", aggregateId);
    return Html.url(base, "/aggregates", q);
  }

  /** {@return how many events it would withdraw now (PENDING or DEAD ones)} */
  long count(OutboxAdmin admin) {
    if (event != null) {
      Optional<StoredEvent> e = admin.find(event);
      return e.isPresent() && waiting(e.get()) ? 1 : 0;
    }
    return admin.liveEventsOf(aggregateType, aggregateId, 1000).stream()
        .filter(Cancellation::waiting)
        .count();
  }

  private static boolean waiting(StoredEvent e) {
    return "PENDING".equals(e.status()) || "DEAD".equals(e.status());
  }

  /** What withdrawing found. */
  static final class Outcome {
    final long cancelled;
    final String text;

    Outcome(long cancelled, String text) {
      this.cancelled = cancelled;
      this.text = text;
    }
  }

  Outcome apply(OutboxAdmin admin) {
    if (event != null) {
      CancelOutcome o = admin.cancel(event, reason);
      return new Outcome(o == CancelOutcome.CANCELLED ? 1 : 0, o.name());
    }
    AggregateCancellation a = admin.cancelAggregate(aggregateType, aggregateId, reason);
    return new Outcome(
        a.cancelled(), "cancelled " + a.cancelled() + ", left to the relay " + a.inFlight());
  }
}
