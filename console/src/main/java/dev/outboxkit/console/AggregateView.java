package dev.outboxkit.console;

import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.StoredEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** An aggregate's unfinished events in order, each with why it waits. */
final class AggregateView {
  static final int LIMIT = 200;

  final String type;
  final String id;
  final List<StoredEvent> events;
  final Instant now;

  private AggregateView(String type, String id, List<StoredEvent> events, Instant now) {
    this.type = type;
    this.id = id;
    this.events = events;
    this.now = now;
  }

  static AggregateView read(OutboxAdmin admin, String type, String id) {
    Instant now = admin.databaseTime();
    return new AggregateView(type, id, admin.liveEventsOf(type, id, LIMIT), now);
  }

  /** {@return the sentence for one event, judged against the unfinished events before it} */
  String why(StoredEvent event) {
    List<StoredEvent> earlier = new ArrayList<>();
    for (StoredEvent e : events) {
      if (e.seq() < event.seq()) {
        earlier.add(e);
      }
    }
    return WaitReasons.explain(event, earlier, now);
  }
}
