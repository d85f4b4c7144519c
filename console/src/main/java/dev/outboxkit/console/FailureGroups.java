package dev.outboxkit.console;

import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.OutboxAdmin;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The DEAD events of a selection grouped by folded reason, read from at most {@link #MAX_ROWS} rows
 * a page at a time; each distinct error text is folded once.
 */
final class FailureGroups {
  static final int MAX_ROWS = 20_000;
  private static final int PAGE = 1000;

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

    void add(DeadEvent e) {
      events++;
      Instant at = e.diedAt() != null ? e.diedAt() : e.occurredAt();
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
    Map<String, String> folded = new HashMap<>();
    Map<String, Group> byReason = new LinkedHashMap<>();
    long read = 0;
    long after = 0;
    boolean more = true;
    while (more && read < MAX_ROWS) {
      List<DeadEvent> page = admin.listDead(selection.filter, after, PAGE);
      for (DeadEvent e : page) {
        String reason = selection.reasonOf(e, folded);
        if (selection.reason == null || selection.reason.equals(reason)) {
          byReason.computeIfAbsent(reason, Group::new).add(e);
        }
      }
      read += page.size();
      more = page.size() == PAGE;
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
