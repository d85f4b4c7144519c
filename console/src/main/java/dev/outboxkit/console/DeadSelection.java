package dev.outboxkit.console;

import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.DeadFilter;
import dev.outboxkit.jdbc.OutboxAdmin;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * DEAD events chosen by a filter and, optionally, a reason group: what the failures page shows and
 * what a replay or discard by filter acts on. Walked a page at a time from the index of DEAD rows,
 * so acting on 100,000 rows is 200 short transactions, never a long one.
 */
final class DeadSelection {
  static final int PAGE = 500;

  /** The query parameters a selection is read from and written to. */
  static final String[] PARAMETERS = {
    "destination", "eventType", "aggregateType", "aggregateId", "from", "to", "reason"
  };

  final DeadFilter filter;
  final String reason;
  private final Map<String, String> parameters;

  private DeadSelection(DeadFilter filter, String reason, Map<String, String> parameters) {
    this.filter = filter;
    this.reason = reason;
    this.parameters = parameters;
  }

  /**
   * {@return the selection the parameters describe}
   *
   * @throws IllegalArgumentException naming a parameter that is not valid
   */
  static DeadSelection from(Function<String, String> parameter) {
    Map<String, String> given = new LinkedHashMap<>();
    for (String name : PARAMETERS) {
      String v = parameter.apply(name);
      if (v != null && !v.isBlank()) {
        given.put(name, v.trim());
      }
    }
    DeadFilter f =
        DeadFilter.builder()
            .destination(given.get("destination"))
            .eventType(given.get("eventType"))
            .aggregateType(given.get("aggregateType"))
            .aggregateId(given.get("aggregateId"))
            .diedFrom(instant(given, "from"))
            .diedBefore(instant(given, "to"))
            .build();
    return new DeadSelection(f, given.get("reason"), given);
  }

  private static Instant instant(Map<String, String> given, String name) {
    String v = given.get(name);
    if (v == null) {
      return null;
    }
    try {
      return Instant.parse(v);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "parameter " + name + " must be a UTC time such as 2026-12-04T10:00:00Z, was " + v);
    }
  }

  /** {@return the parameters that describe this selection, for links and forms} */
  Map<String, String> parameters() {
    return new LinkedHashMap<>(parameters);
  }

  /** {@return the selection as an operator reads it, for the audit row} */
  String describe() {
    if (parameters.isEmpty()) {
      return "every DEAD event";
    }
    StringBuilder s = new StringBuilder();
    parameters.forEach(
        (k, v) -> s.append(s.length() == 0 ? "" : ", ").append(k).append('=').append(v));
    return s.toString();
  }

  boolean matches(DeadEvent e, Map<String, String> folded) {
    return reason == null || reason.equals(reasonOf(e, folded));
  }

  /**
   * {@return the folded reason of an event's error}
   *
   * @param folded the errors folded so far, each distinct text folded once
   */
  String reasonOf(DeadEvent e, Map<String, String> folded) {
    String error = e.lastError();
    return error == null ? Reasons.group(null) : folded.computeIfAbsent(error, Reasons::group);
  }

  /** What a dry run found. */
  static final class Count {
    long rows;
    final Set<String> aggregates = new LinkedHashSet<>();

    static final int SHOWN_AGGREGATES = 20;

    void add(DeadEvent e) {
      rows++;
      aggregates.add(e.aggregateType() + "/" + e.aggregateId());
    }

    List<String> someAggregates() {
      List<String> some = new ArrayList<>();
      for (String a : aggregates) {
        if (some.size() == SHOWN_AGGREGATES) {
          break;
        }
        some.add(a);
      }
      return some;
    }
  }

  /** {@return how many DEAD rows the selection holds now, and of which aggregates} */
  Count count(OutboxAdmin admin) {
    Count count = new Count();
    Map<String, String> folded = new HashMap<>();
    long after = 0;
    while (true) {
      List<DeadEvent> page = admin.listDead(filter, after, PAGE);
      for (DeadEvent e : page) {
        if (matches(e, folded)) {
          count.add(e);
        }
      }
      if (page.size() < PAGE) {
        return count;
      }
      after = page.get(page.size() - 1).seq();
    }
  }

  /** The change applied to each page's matching rows, in a transaction of its own. */
  @FunctionalInterface
  interface Change {
    int apply(List<Long> seqs);
  }

  /** {@return how many rows the change changed} One transaction per page. */
  long apply(OutboxAdmin admin, Change change) {
    long changed = 0;
    Map<String, String> folded = new HashMap<>();
    long after = 0;
    while (true) {
      List<DeadEvent> page = admin.listDead(filter, after, PAGE);
      List<Long> seqs = new ArrayList<>(page.size());
      for (DeadEvent e : page) {
        if (matches(e, folded)) {
          seqs.add(e.seq());
        }
      }
      changed += change.apply(seqs);
      if (page.size() < PAGE) {
        return changed;
      }
      after = page.get(page.size() - 1).seq();
    }
  }
}
