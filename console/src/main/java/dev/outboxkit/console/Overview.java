package dev.outboxkit.console;

import dev.outboxkit.jdbc.BacklogGroup;
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

/**
 * What the overview shows, read in four bounded, index-driven statements: the counts, the next
 * {@link #SAMPLE} events to be claimed grouped, the recent throughput and the relays at work. When
 * the backlog is larger than the sample, its groups describe the part the relays meet next, and a
 * destination's share of the whole is estimated from its share of the sample.
 */
final class Overview {
  static final int SAMPLE = 20_000;
  static final Duration THROUGHPUT_WINDOW = Duration.ofMinutes(15);
  static final int THROUGHPUT_ROWS = 20_000;
  static final int GROUPS = 2000;
  static final int SHOWN = 25;

  /** The PENDING events of the sample of one destination, event type or tenant. */
  static final class Backlog {
    final String key;
    long pending;
    long notDue;
    long held;
    Instant oldest;
    Instant heldSince;
    Instant heldUntil;

    Backlog(String key) {
      this.key = key;
    }

    void add(BacklogGroup g) {
      pending += g.events();
      notDue += g.notDue();
      held += g.held();
      oldest = earliest(oldest, g.oldestOccurredAt());
      heldSince = earliest(heldSince, g.heldSince().orElse(null));
      Instant until = g.heldUntil().orElse(null);
      heldUntil =
          heldUntil == null || (until != null && until.isAfter(heldUntil)) ? until : heldUntil;
    }

    private static Instant earliest(Instant a, Instant b) {
      return a == null || (b != null && b.isBefore(a)) ? b : a;
    }
  }

  final OutboxSnapshot snapshot;
  final long sampled;
  final List<Backlog> byDestination;
  final List<Backlog> byEventType;
  final List<Backlog> byTenant;
  final List<Backlog> held;
  final boolean groupsCut;
  final RecentThroughput throughput;
  final List<LeaseHolder> relays;

  Overview(OutboxAdmin admin) {
    this.snapshot = admin.snapshot();
    List<BacklogGroup> groups = admin.backlog(SAMPLE, GROUPS);
    this.sampled = groups.stream().mapToLong(BacklogGroup::events).sum();
    this.groupsCut = groups.size() == GROUPS;
    List<Backlog> destinations = fold(groups, g -> g.destination().orElse(null));
    this.byDestination = shown(destinations);
    this.byEventType = shown(fold(groups, BacklogGroup::eventType));
    this.byTenant = shown(fold(groups, g -> g.tenant().orElse(null)));
    List<Backlog> down = new ArrayList<>();
    for (Backlog d : destinations) {
      if (d.held > 0) {
        down.add(d);
      }
    }
    this.held = down;
    this.throughput = admin.recentThroughput(THROUGHPUT_WINDOW, THROUGHPUT_ROWS);
    this.relays = admin.leaseHolders(100);
  }

  private static List<Backlog> fold(List<BacklogGroup> groups, Function<BacklogGroup, String> key) {
    Map<String, Backlog> folded = new LinkedHashMap<>();
    for (BacklogGroup g : groups) {
      folded.computeIfAbsent(key.apply(g), Backlog::new).add(g);
    }
    List<Backlog> list = new ArrayList<>(folded.values());
    list.sort(Comparator.comparingLong((Backlog b) -> b.pending).reversed());
    return list;
  }

  private static List<Backlog> shown(List<Backlog> all) {
    return all.size() > SHOWN ? all.subList(0, SHOWN) : all;
  }

  /** {@return whether the sample holds the whole backlog, so its counts are exact} */
  boolean exact() {
    return sampled >= snapshot.pending();
  }

  /** {@return the PENDING events of a group in the whole backlog: counted, or estimated} */
  long pendingOf(Backlog b) {
    if (exact() || sampled == 0) {
      return b.pending;
    }
    return Math.round((double) snapshot.pending() * b.pending / sampled);
  }

  /**
   * {@return the time to drain a destination's backlog at its recent rate; null if not draining}
   */
  Duration drainTime(Backlog destination) {
    long left = pendingOf(destination);
    if (left == 0) {
      return Duration.ZERO;
    }
    double perMinute = throughput.perMinute(destination.key);
    if (perMinute <= 0) {
      return null;
    }
    return Duration.ofSeconds((long) Math.ceil(left / perMinute * 60));
  }
}
