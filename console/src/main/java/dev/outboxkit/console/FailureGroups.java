package dev.outboxkit.console;

import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.StoredEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/** The DEAD events of a selection grouped by reason, read from at most {@link #MAX_ROWS} rows. */
final class FailureGroups {
  static final int MAX_ROWS = 20_000;

  /** One reason and the DEAD events that died of it. */
  static final class Group {
    final String reason;
    long events;
    Instant first;
    Instant last;
    final TreeSet<String> destinations = new TreeSet<>();
    final TreeSet<String> eventTypes = new TreeSet<>();

    Group(String reason) {
      this.reason = reason;
    }

    void add(StoredEvent e) {
      events++;
      Instant at = e.finishedAt().orElse(e.occurredAt());
      first = first == null || at.isBefore(first) ? at : first;
      last = last == null || at.isAfter(last) ? at : last;
      if (destinations.size() < 20) {
        destinations.add(e.destination().orElse("(default)"));
      }
      if (eventTypes.size() < 20) {
        eventTypes.add(e.eventType());
      }
    }
  }

  final List<Group> groups;
  final long rowsRead;
  final boolean cut;

  FailureGroups(OutboxAdmin admin, DeadSelection selection) {
    Map<String, Group> byReason = new LinkedHashMap<>();
    long read = 0;
    long after = 0;
    boolean more = true;
    while (more && read < MAX_ROWS) {
      List<StoredEvent> page = admin.findDead(selection.filter, after, 1000);
      for (StoredEvent e : page) {
        String reason = Reasons.group(e.lastError().orElse(null));
        if (selection.reason == null || selection.reason.equals(reason)) {
          byReason.computeIfAbsent(reason, Group::new).add(e);
        }
      }
      read += page.size();
      more = page.size() == 1000;
      if (more) {
        after = page.get(page.size() - 1).seq();
      }
    }
    List<Group> list = new ArrayList<>(byReason.values());
    list.sort(Comparator.comparingLong((Group g) -> g.events).reversed());
    this.groups = list;
    this.rowsRead = read;
    this.cut = more;
  }
}
