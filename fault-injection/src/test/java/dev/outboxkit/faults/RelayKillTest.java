package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.testkit.ChildJvm;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Scenario 2, relay killed mid-batch (guarantee 2). Two relay JVMs drain a backlog to Kafka; one of
 * them runs steadily, the other is SIGKILLed again and again and restarted: right after a claim, in
 * the middle of a send (half the batch acknowledged by Kafka), after Kafka acknowledged the whole
 * batch but before the database recorded it, and at random moments while sending.
 *
 * <p>Afterwards every event is on the topic at least once, nothing is left IN_FLIGHT, PENDING or
 * DEAD, and every duplicate is explained: it was in the batch a kill interrupted, either already
 * acknowledged by Kafka (the acknowledgement to the database was lost) or in flight to Kafka; or,
 * rarely, a live relay sent it and was not told it arrived (Kafka timed out on a loaded machine
 * although it took the record, or the lease was lost). No event is sent again after a relay
 * recorded it PUBLISHED.
 */
class RelayKillTest extends FaultTest {
  private static final int EVENTS = 50_000;
  // Many aggregates, so that a restarted relay finds heads to claim: in ordered mode the steady
  // relay holds up to three batches of 200 heads IN_FLIGHT (the one sent, the one claimed ahead,
  // the one claimed with an acknowledgement), and a killed one's batches block theirs until the
  // lease runs out.
  private static final int AGGREGATES = 5_000;
  private static final int KILLS = 12;
  private static final Duration LEASE = Duration.ofSeconds(8);
  private static final String[] PHASES = {"AFTER_CLAIM", "MID_SEND", "AFTER_BROKER_ACK", "RANDOM"};

  /**
   * Latency the steady relay adds per batch of 200: it drains at most 200 events/s, so alone it
   * would need over four minutes for the backlog. The kills must not race it: at 1,000 events/s
   * (200 ms) a loaded CI machine, starting each victim JVM slowly, saw the backlog gone after six
   * of the twelve kills. The unpaced last relay drains what is left once the kills are done.
   */
  private static final Duration STEADY_DELAY = Duration.ofSeconds(1);

  /**
   * The steady relay's time limit: the victims' 3 s plus the delay it spends inside each call, so
   * its Kafka transport gets the same budget as theirs.
   */
  private static final Duration STEADY_SEND_TIMEOUT = Duration.ofSeconds(4);

  @Test
  void delivers_every_event_and_explains_every_duplicate_when_a_relay_is_killed_mid_batch()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Transfer");
    String topic = createTopic(broker, type);
    long start = System.nanoTime();
    List<OutboxEvent> events = append(EVENTS, 1_000, i -> event(type, i, AGGREGATES));
    log.info("[{}] {} events appended in {} s", flavor(), EVENTS, secondsSince(start));

    List<String> common = relayChildArgs(broker, LEASE);
    common.add("--batch=200");
    List<RelayLog> logs = new ArrayList<>();
    Map<String, Integer> kills = new TreeMap<>();
    // The steady relay is paced (as a remote broker's latency would), so the backlog outlasts the
    // twelve restarts: a victim must find work left to be killed in the middle of it.
    ChildJvm steady =
        startChild(
            "relay-steady",
            RelayChild.class,
            with(
                common,
                "--name=steady",
                "--send-delay-ms=" + STEADY_DELAY.toMillis(),
                "--send-timeout-ms=" + STEADY_SEND_TIMEOUT.toMillis()));
    steady.expectLine(l -> l.endsWith(" READY"), Duration.ofSeconds(60), "READY");

    for (int k = 0; k < KILLS && count(EventStatus.PUBLISHED) < EVENTS; k++) {
      String phase = PHASES[k % PHASES.length];
      int killBatch = 1 + random.nextInt(3);
      try (ChildJvm victim =
          startChild(
              "relay-victim-" + k,
              RelayChild.class,
              with(
                  common,
                  "--name=victim-" + k,
                  "--kill-phase=" + phase,
                  "--kill-batch=" + killBatch))) {
        victim.expectLine(l -> l.endsWith(" READY"), Duration.ofSeconds(60), "READY");
        Optional<String> reached;
        if (phase.equals("RANDOM")) {
          // A Kafka round trip takes tens of milliseconds: kill within that window or just after.
          reached = victim.awaitLine(l -> l.contains(" SENDING "), Duration.ofSeconds(30));
          sleep(random.nextInt(60));
        } else {
          reached = victim.awaitLine(l -> l.contains(" PAUSED "), Duration.ofSeconds(30));
        }
        victim.kill();
        if (reached.isPresent()) {
          kills.merge(phase, 1, Integer::sum);
        } else {
          log.warn("[{}] victim {} never reached {} (backlog drained?)", flavor(), k, phase);
        }
        logs.add(new RelayLog(victim.name(), true, victim.lines()));
      }
    }
    log.info(
        "[{}] kills done after {} s with {} of {} events published",
        flavor(),
        secondsSince(start),
        count(EventStatus.PUBLISHED),
        EVENTS);
    // The last restart is left alone; with the steady relay it finishes the drain.
    ChildJvm last = startChild("relay-victim-last", RelayChild.class, with(common, "--name=last"));
    awaitPublished(EVENTS, Duration.ofMinutes(4));
    double seconds = secondsSince(start);
    steady.stop(Duration.ofSeconds(15));
    last.stop(Duration.ofSeconds(15));
    logs.add(new RelayLog(steady.name(), false, steady.lines()));
    logs.add(new RelayLog(last.name(), false, last.lines()));

    assertThat(statuses())
        .as("nothing left in flight, pending or dead")
        .containsEntry(EventStatus.PUBLISHED, (long) EVENTS)
        .containsEntry(EventStatus.IN_FLIGHT, 0L)
        .containsEntry(EventStatus.PENDING, 0L)
        .containsEntry(EventStatus.DEAD, 0L);

    TopicCopies copies = TopicCopies.read(broker, topic);
    long lost = copies.lost(events);

    Duplicates explained = Duplicates.explain(logs, copies.byId);
    int duplicates = copies.duplicates();
    log.info(
        "[{}] {} records for {} events: {} duplicates; duplicated ids: {} acknowledged by Kafka"
            + " before a kill, {} in flight at a kill, {} sent by a live relay and not confirmed"
            + " to it, {} unexplained; kills {}",
        flavor(),
        copies.records,
        copies.distinct(),
        duplicates,
        explained.ackedBeforeKill,
        explained.inFlightAtKill,
        explained.unconfirmedLive,
        explained.unexplained.size(),
        kills);
    writeReport(
        "2 relay killed mid-batch",
        events,
        copies,
        seconds,
        "SIGKILLs "
            + kills
            + "; duplicated ids: "
            + explained.ackedBeforeKill
            + " broker-acked before the DB ack, "
            + explained.inFlightAtKill
            + " in flight at the kill, "
            + explained.unconfirmedLive
            + " not confirmed to a live relay, "
            + explained.unexplained.size()
            + " unexplained; lease lost by live relays: "
            + explained.leaseLost);

    assertThat(lost).as("events missing from the topic").isZero();
    assertThat(explained.unexplained).as("duplicates no unrecorded send explains").isEmpty();
    assertThat(explained.sentAfterRecorded)
        .as("events sent again after they were recorded PUBLISHED")
        .isEmpty();
    assertThat(kills.keySet()).as("kill points hit").containsExactlyInAnyOrder(PHASES);
    assertThat(kills.values().stream().mapToInt(Integer::intValue).sum())
        .as("kills that hit a relay mid-drain, of " + KILLS)
        .isGreaterThanOrEqualTo(KILLS - 2);
  }
}
