package dev.outboxkit.console;

import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.StoredEvent;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/** One event, headers and payload included, and why it waits, judged against its aggregate. */
final class EventView {
  final StoredEvent event;
  final String why;
  final Instant now;

  private EventView(StoredEvent event, String why, Instant now) {
    this.event = event;
    this.why = why;
    this.now = now;
  }

  /** {@return the view, or null if the table has no such event} */
  static EventView read(OutboxAdmin admin, String idText) {
    UUID id;
    try {
      id = UUID.fromString(idText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("an event id is a UUID, this is not one");
    }
    Optional<StoredEvent> found = admin.find(id);
    if (found.isEmpty()) {
      return null;
    }
    StoredEvent event = found.get();
    AggregateView aggregate = AggregateView.read(admin, event.aggregateType(), event.aggregateId());
    return new EventView(event, aggregate.why(event), aggregate.now);
  }
}
