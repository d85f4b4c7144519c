package dev.outboxkit.console;

import dev.outboxkit.jdbc.BacklogGroup;
import dev.outboxkit.jdbc.DestinationHold;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.LeaseHolder;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxSnapshot;
import dev.outboxkit.jdbc.RecentThroughput;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** What the overview shows, read in five bounded, index-driven statements. */
final class Overview {
  static final Duration THROUGHPUT_WINDOW = Duration.ofMinutes(15);
  static final int THROUGHPUT_ROWS = 20_000;
  static final int GROUPS = 2000;
  static final int SHOWN = 25;

  /** Live events of one destination, event type or tenant. */
  static final class Backlog {
    final String key;
    long pending;
    long inFlight;
    long notDue;
    Instant oldest;

    Backlog(String key) {
      this.key = key;
    }

    void add(BacklogGroup g) {
      if (g.status() == EventStatus.PENDING) {
        pending += g.events();
      } else {
        inFlight += g.events();
      }
      notDue += g.notDue();
      if (oldest == null || g.oldestOccurredAt().isBefore(oldest)) {
        oldest = g.oldestOccurredAt();
      }
    }
  }

  final OutboxSnapshot snapshot;
  final List<Backlog> byDestination;
  final List<Backlog> byEventType;
  final List<Backlog> byTenant;
  final boolean groupsCut;
  final RecentThroughput throughput;
  final List<DestinationHold> held;
  final List<LeaseHolder> relays;

  Overview(OutboxAdmin admin) {
    this.snapshot = admin.snapshot();
    List<BacklogGroup> groups = admin.backlog(GROUPS);
    this.groupsCut = groups.size() == GROUPS;
    this.byDestination = fold(groups, g -> g.destination().orElse(null));
    this.byEventType = fold(groups, BacklogGroup::eventType);
    this.byTenant = fold(groups, g -> g.tenant().orElse(null));
    this.throughput = admin.recentThroughput(THROUGHPUT_WINDOW, THROUGHPUT_ROWS);
    this.held = admin.heldDestinations(100);
    this.relays = admin.leaseHolders(100);
  }

  private static List<Backlog> fold(List<BacklogGroup> groups, Function<BacklogGroup, String> key) {
    Map<String, Backlog> folded = new LinkedHashMap<>();
    for (BacklogGroup g : groups) {
      String k = key.apply(g);
      folded.computeIfAbsent(k, Backlog::new).add(g);
    }
    List<Backlog> list = new ArrayList<>(folded.values());
    list.sort(Comparator.comparingLong((Backlog b) -> b.pending + b.inFlight).reversed());
    return list.size() > SHOWN ? list.subList(0, SHOWN) : list;
  }

  /**
   * {@return the time to drain a destination's backlog at its recent rate; null if not draining}
   */
  Duration drainTime(Backlog destination) {
    double perMinute = throughput.perMinute(destination.key);
    long left = destination.pending + destination.inFlight;
    if (left == 0) {
      return Duration.ZERO;
    }
    if (perMinute <= 0) {
      return null;
    }
    return Duration.ofSeconds((long) Math.ceil(left / perMinute * 60));
  }
}
