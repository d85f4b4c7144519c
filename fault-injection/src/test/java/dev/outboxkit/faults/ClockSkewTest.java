package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.testkit.ChildJvm;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Scenario 7, clock skew. Two relay JVMs whose injected clocks ({@code OutboxRelay.Builder#clock})
 * run {@value #SKEW_MINUTES} minutes ahead of and behind the host share one table. Leases and retry
 * availability must follow the database clock, so:
 *
 * <ul>
 *   <li>a relay killed right after a claim has its events taken over after about the lease, not at
 *       once (which a relay reading its fast clock, or a lease written by a slow one, would allow)
 *       and not minutes later (which a lease written by a fast clock would impose);
 *   <li>an event a transport asked to retry after {@value #RETRY_AFTER_MILLIS} ms is not sent again
 *       sooner, and not minutes later;
 *   <li>no live relay's lease is ever taken: nothing is delivered twice, as the only kills come
 *       before anything of their batch was sent.
 * </ul>
 */
class ClockSkewTest extends FaultTest {
  private static final int EVENTS = 5_000;
  private static final int SKEW_MINUTES = 7;
  private static final Duration LEASE = Duration.ofSeconds(6);
  private static final long RETRY_AFTER_MILLIS = 3_000;

  /** Host and database clocks are one clock here; this covers rounding of stored timestamps. */
  private static final long SLACK_MILLIS = 250;

  @Test
  void honours_leases_and_retry_delays_by_the_database_clock_when_relay_clocks_are_minutes_apart()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Skew");
    String topic = createTopic(broker, type);
    long start = System.nanoTime();
    List<OutboxEvent> events = append(EVENTS, 1_000, i -> event(type, i, 200));

    List<String> common = relayChildArgs(broker, LEASE);
    common.add("--send-timeout-ms=3000");
    common.add("--batch=100");
    common.add("--retry-percent=5");
    common.add("--retry-after-ms=" + RETRY_AFTER_MILLIS);
    String ahead = "--clock-offset-s=" + SKEW_MINUTES * 60;
    String behind = "--clock-offset-s=-" + SKEW_MINUTES * 60;

    List<RelayLog> logs = new ArrayList<>();
    List<Takeover> takeovers = new ArrayList<>();
    ChildJvm fast =
        startChild(
            "skew-ahead-1",
            RelayChild.class,
            with(common, ahead, "--name=ahead-1", "--kill-phase=AFTER_CLAIM", "--kill-batch=3"));
    ChildJvm slow =
        startChild(
            "skew-behind-1",
            RelayChild.class,
            with(common, behind, "--name=behind-1", "--kill-phase=AFTER_CLAIM", "--kill-batch=5"));
    // Each is killed while it holds a claim (its listener parks right after the claim), and
    // restarted with the same clock. The held rows are read before the lease runs out.
    Map<ChildJvm, String> victims = new HashMap<>(Map.of(fast, "ahead-1", slow, "behind-1"));
    List<ChildJvm> restarted = new ArrayList<>();
    long giveUp = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (!victims.isEmpty()) {
      for (Map.Entry<ChildJvm, String> v : new ArrayList<>(victims.entrySet())) {
        if (v.getKey().awaitLine(l -> l.contains(" PAUSED "), Duration.ofMillis(20)).isPresent()) {
          takeovers.add(killHoldingClaim(v.getKey(), v.getValue(), logs));
          victims.remove(v.getKey());
          boolean isAhead = v.getValue().startsWith("ahead");
          String relay = isAhead ? "ahead-2" : "behind-2";
          restarted.add(
              startChild(
                  "skew-" + relay,
                  RelayChild.class,
                  with(common, isAhead ? ahead : behind, "--name=" + relay)));
        }
      }
      assertThat(System.nanoTime() - giveUp)
          .as("both relays reached their kill point")
          .isNegative();
    }

    // Far below the skew: a lease or delay stretched by minutes fails here.
    awaitPublished(EVENTS, Duration.ofMinutes(2));
    double seconds = secondsSince(start);
    for (ChildJvm c : restarted) {
      c.stop(Duration.ofSeconds(15));
      logs.add(new RelayLog(c.name(), false, c.lines()));
    }

    // When was each event first sent after a given moment, by any relay?
    Map<String, List<Long>> sends = new HashMap<>();
    Map<String, Long> retryAsked = new HashMap<>();
    for (RelayLog l : logs) {
      for (RelayLog.Line line : l.lines) {
        if (line.word.equals("SENDING")) {
          for (String id : line.ids) {
            sends.computeIfAbsent(id, k -> new ArrayList<>()).add(line.millis);
          }
        } else if (line.word.equals("RETRY_ASKED")) {
          for (String id : line.ids) {
            retryAsked.merge(id, line.millis, Math::min);
          }
        }
      }
    }
    List<String> takeoverNotes = new ArrayList<>();
    for (Takeover t : takeovers) {
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (String id : t.ids) {
        long sent =
            sends.getOrDefault(id, List.of()).stream()
                .filter(s -> s >= t.claimedAt)
                .min(Long::compare)
                .orElseThrow(
                    () -> new AssertionError("event " + id + " of a killed claim was never sent"));
        // Not before its own lease ran out, by the database clock (a batch claimed ahead, still
        // being sent at the kill, holds leases that began before the killed claim's).
        assertThat(sent)
            .as("%s's event %s taken over no sooner than its lease ended", t.relay, id)
            .isGreaterThanOrEqualTo(t.leaseEnds.get(id) - SLACK_MILLIS);
        first = Math.min(first, sent);
        last = Math.max(last, sent);
      }
      // Each lease was written by the database clock, not a relay's skewed one, which would put
      // it minutes off: the latest ends no later than the lease after the killed claim was
      // reported; the earliest (a batch claimed ahead began at most a send timeout earlier, 30 s
      // leaves room for a loaded machine) ends no sooner than 30 s before the killed claim began.
      long latestEnd = t.leaseEnds.values().stream().mapToLong(Long::longValue).max().orElseThrow();
      long earliestEnd =
          t.leaseEnds.values().stream().mapToLong(Long::longValue).min().orElseThrow();
      assertThat(latestEnd)
          .as("%s's latest lease end", t.relay)
          .isLessThanOrEqualTo(t.claimedAt + LEASE.toMillis() + SLACK_MILLIS);
      assertThat(earliestEnd)
          .as("%s's earliest lease end", t.relay)
          .isGreaterThanOrEqualTo(t.claimStartedAt - Duration.ofSeconds(30).toMillis());
      takeoverNotes.add(
          String.format(
              Locale.ROOT,
              "%s's %d events taken over %.2f-%.1f s after the claim began",
              t.relay,
              t.ids.size(),
              (first - t.claimStartedAt) / 1000.0,
              (last - t.claimStartedAt) / 1000.0));
    }
    long shortestRetryGap = Long.MAX_VALUE;
    long longestRetryGap = 0;
    for (Map.Entry<String, Long> e : retryAsked.entrySet()) {
      long next =
          sends.getOrDefault(e.getKey(), List.of()).stream()
              .filter(s -> s >= e.getValue())
              .min(Long::compare)
              .orElseThrow(() -> new AssertionError("retried event " + e.getKey() + " never sent"));
      shortestRetryGap = Math.min(shortestRetryGap, next - e.getValue());
      longestRetryGap = Math.max(longestRetryGap, next - e.getValue());
    }

    TopicCopies copies = TopicCopies.read(broker, topic);
    long lost = copies.lost(events);
    // A kill at a claim may also hit the batch before it between Kafka's acknowledgement and the
    // database's (the relay claims the next batch while one is sent).
    Duplicates explained = Duplicates.explain(logs, copies.byId);
    writeReport(
        "7 clock skew +-" + SKEW_MINUTES + " min",
        events,
        copies,
        seconds,
        String.join("; ", takeoverNotes)
            + String.format(
                Locale.ROOT,
                "; %d retries asked after %d ms, sent again %.1f-%.1f s later; %d leases lost",
                retryAsked.size(),
                RETRY_AFTER_MILLIS,
                shortestRetryGap / 1000.0,
                longestRetryGap / 1000.0,
                explained.leaseLost));

    assertThat(lost).as("events missing from the topic").isZero();
    assertThat(count(EventStatus.DEAD)).isZero();
    assertThat(retryAsked).as("events asked to retry").isNotEmpty();
    assertThat(shortestRetryGap)
        .as("shortest wait of a retry asked to wait %d ms", RETRY_AFTER_MILLIS)
        .isGreaterThanOrEqualTo(RETRY_AFTER_MILLIS - SLACK_MILLIS);
    assertThat(explained.leaseLost).as("leases taken from live relays").isZero();
    assertThat(explained.unexplained).as("duplicates no unrecorded send explains").isEmpty();
    assertThat(explained.sentAfterRecorded)
        .as("events sent again after they were recorded PUBLISHED")
        .isEmpty();
  }

  /**
   * A claim a kill left behind: who held it, when it was made, what it held and until when (the
   * rows of the batch before it too, if that one was still being sent: claimed ahead, earlier).
   */
  private static final class Takeover {
    final String relay;
    final long claimedAt;
    final long claimStartedAt;
    final Map<String, Long> leaseEnds;
    final Set<String> ids;

    Takeover(String relay, RelayLog.Batch claim, Map<String, Long> leaseEnds) {
      this.relay = relay;
      this.claimedAt = claim.claimedAt;
      this.claimStartedAt = claim.claimStartedAt;
      this.leaseEnds = leaseEnds;
      this.ids = leaseEnds.keySet();
    }
  }

  private Takeover killHoldingClaim(ChildJvm child, String relay, List<RelayLog> logs)
      throws Exception {
    // Each held row with the end of its lease, as the database wrote it (epoch milliseconds).
    String leaseEnd =
        flavor() == Flavor.POSTGRES
            ? "CAST(EXTRACT(EPOCH FROM lease_until) * 1000 AS BIGINT)"
            : "TIMESTAMPDIFF(MICROSECOND, '1970-01-01', lease_until) DIV 1000";
    Map<String, Long> leaseEnds = new HashMap<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT id, "
                    + leaseEnd
                    + " FROM outbox_event WHERE status = 'IN_FLIGHT' AND lease_owner LIKE '"
                    + relay
                    + "@%'")) {
      while (rs.next()) {
        leaseEnds.put(rs.getString(1), rs.getLong(2));
      }
    }
    Set<String> ids = leaseEnds.keySet();
    child.kill();
    RelayLog log = new RelayLog(child.name(), true, child.lines());
    logs.add(log);
    RelayLog.Batch claim = log.interrupted();
    assertThat(claim).as("the claim %s was killed holding", relay).isNotNull();
    // Its rows, and the batch before it if that one was still being sent (claimed ahead).
    assertThat(ids).hasSizeGreaterThanOrEqualTo(claim.size);
    return new Takeover(relay, claim, leaseEnds);
  }
}
