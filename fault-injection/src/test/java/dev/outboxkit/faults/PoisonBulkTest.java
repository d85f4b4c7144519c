package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RecordingListener;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * Scenario 6, poison in bulk (guarantee 5 from the other side: an event-specific permanent failure
 * does quarantine). One event in a hundred is rejected for good; exactly those must end DEAD, each
 * with its reason and after one attempt, and all others must be delivered. Two kinds of poison:
 *
 * <ul>
 *   <li>Kafka refuses it: the event is larger than the topic's {@code max.message.bytes}. The
 *       producer sends it and the broker answers MESSAGE_TOO_LARGE, which also costs the idempotent
 *       producer a recovery (a new epoch) per refused batch;
 *   <li>the transport rejects it before Kafka sees it (a wrapper answers {@code reject}): what
 *       quarantining costs the relay itself.
 * </ul>
 *
 * The throughput of the healthy events in each is compared with clean runs of the same size in the
 * same JVM and reported, not asserted: wall-clock numbers do not gate the build. Relays run in
 * ordered mode (the default) and each poison event is the only event of its aggregate, so its
 * quarantine holds back nothing else.
 */
class PoisonBulkTest extends FaultTest {
  // 100 poison events among 9,900 healthy ones per run: enough to see each quarantined exactly,
  // in four runs (two of them the clean baseline of a ratio that is only reported).
  private static final int EVENTS = 10_000;
  private static final int TOPIC_MAX_BYTES = 64 * 1024;
  private static final int OVERSIZED_BYTES = 100 * 1024;
  private static final String POISON_HEADER = "poison";

  /** Who turns the poison away. */
  enum Poison {
    NONE,
    KAFKA_REFUSES,
    TRANSPORT_REJECTS
  }

  @Test
  void quarantines_exactly_the_poison_events_and_keeps_the_rest_flowing_when_one_percent_is_poison()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    // Clean runs before and after, so neither a warming JVM nor a table that grows into its
    // pages favours one side: the baseline is their mean.
    Run cleanBefore = run(broker, Poison.NONE, EVENTS);
    Run rejected = run(broker, Poison.TRANSPORT_REJECTS, EVENTS);
    Run refused = run(broker, Poison.KAFKA_REFUSES, EVENTS);
    Run cleanAfter = run(broker, Poison.NONE, EVENTS);
    double baseline = 2.0 * EVENTS / (cleanBefore.seconds + cleanAfter.seconds);

    for (Run r : List.of(refused, rejected)) {
      double ratio = r.healthyPerSecond() / baseline;
      String note =
          String.format(
              Locale.ROOT,
              "%d poison DEAD (%s); healthy events %.0f/s vs %.0f/s clean (%.0f/s before, %.0f/s"
                  + " after): ratio %.2f (goal >= 0.8, reported only); %s",
              r.dead.size(),
              r.poison == Poison.KAFKA_REFUSES ? "refused by Kafka" : "rejected by the transport",
              r.healthyPerSecond(),
              baseline,
              cleanBefore.healthyPerSecond(),
              cleanAfter.healthyPerSecond(),
              ratio,
              r.timeSplit);
      log.info("[{}] {}", flavor(), note);
      new FaultReport(
              r.poison == Poison.KAFKA_REFUSES
                  ? "6 poison 1%, Kafka refuses"
                  : "6 poison 1%, rejected",
              database(),
              EVENTS,
              r.onTopic.size(),
              r.duplicates,
              r.dead.size(),
              r.lost,
              r.seconds,
              note)
          .write();
    }

    for (Run r : List.of(refused, rejected)) {
      assertThat(r.lost).as("healthy events missing from the topic").isZero();
      assertThat(r.dead).extracting(DeadEvent::id).containsExactlyInAnyOrderElementsOf(r.poisonIds);
      assertThat(r.dead)
          .allSatisfy(
              d -> {
                assertThat(d.attempts()).as("rejected at the first attempt").isEqualTo(1);
                assertThat(d.lastError())
                    .contains(
                        r.poison == Poison.KAFKA_REFUSES ? "RecordTooLargeException" : "poison");
              });
      assertThat(r.onTopic).as("no poison on the topic").doesNotContainAnyElementsOf(r.poisonIds);
    }
    assertThat(cleanBefore.lost + cleanAfter.lost).isZero();
  }

  /** What one run did. */
  private static final class Run {
    Poison poison;
    int healthy;
    double seconds;
    String timeSplit;
    Set<UUID> poisonIds = new HashSet<>();
    List<DeadEvent> dead = new ArrayList<>();
    Set<UUID> onTopic = new HashSet<>();
    long lost;
    long duplicates;

    double healthyPerSecond() {
      return healthy / seconds;
    }
  }

  /** Appends {@code count} events (1% poison unless NONE) to an empty table and drains them. */
  private Run run(KafkaTestBroker broker, Poison poison, int count) throws Exception {
    execute("DELETE FROM outbox_event");
    Run run = new Run();
    run.poison = poison;
    String type = unique("Parcel");
    String topic = "outbox.event." + type;
    broker.createTopic(topic, 4, Map.of("max.message.bytes", Integer.toString(TOPIC_MAX_BYTES)));
    List<OutboxEvent> events =
        append(
            count,
            1_000,
            i -> {
              if (poison == Poison.NONE || i % 100 != 37) {
                return event(type, i, 500);
              }
              OutboxEvent.Builder b =
                  OutboxEvent.builder(type, "poison-" + i, "Poison").header(POISON_HEADER, "yes");
              OutboxEvent e =
                  poison == Poison.KAFKA_REFUSES
                      ? b.payload(new byte[OVERSIZED_BYTES], "application/octet-stream").build()
                      : b.payload("{\"n\":" + i + "}").build();
              run.poisonIds.add(e.id());
              return e;
            });
    run.healthy = count - run.poisonIds.size();

    long start = System.nanoTime();
    RecordingListener counters = new RecordingListener();
    List<AutoCloseable> started = new ArrayList<>();
    try {
      for (int r = 1; r <= 2; r++) {
        String name = poison.name().toLowerCase(Locale.ROOT) + "-" + r;
        Transport kafka =
            KafkaTransports.create(broker.bootstrapServers(), name, Duration.ofSeconds(10));
        started.add(kafka);
        Transport transport = poison == Poison.TRANSPORT_REJECTS ? new Rejecting(kafka) : kafka;
        OutboxRelay relay =
            OutboxRelay.builder(ds, transport)
                .name(name)
                .batchSize(200)
                .pollInterval(Duration.ofMillis(100))
                .sendTimeout(Duration.ofSeconds(10))
                .listener(counters)
                .build();
        started.add(relay);
        relay.start();
      }
      int poisonCount = run.poisonIds.size();
      Await.until(
          () ->
              count(EventStatus.PUBLISHED) >= run.healthy && count(EventStatus.DEAD) >= poisonCount,
          Duration.ofMinutes(3),
          () ->
              poison
                  + ": "
                  + run.healthy
                  + " PUBLISHED and "
                  + poisonCount
                  + " DEAD; "
                  + statuses());
      run.seconds = secondsSince(start);
      run.timeSplit = counters.timeSplit();
    } finally {
      for (int i = started.size() - 1; i >= 0; i--) {
        started.get(i).close();
      }
    }

    OutboxAdmin admin = OutboxAdmin.create(ds);
    for (List<DeadEvent> page = admin.listDead(0, 1000); !page.isEmpty(); ) {
      run.dead.addAll(page);
      page = admin.listDead(page.get(page.size() - 1).seq(), 1000);
    }
    List<ConsumerRecord<String, byte[]>> records = broker.readAll(topic);
    for (ConsumerRecord<String, byte[]> r : records) {
      run.onTopic.add(KafkaEvents.eventId(r).orElseThrow());
    }
    run.duplicates = records.size() - run.onTopic.size();
    run.lost =
        events.stream()
            .filter(e -> !run.poisonIds.contains(e.id()) && !run.onTopic.contains(e.id()))
            .count();
    log.info("[{}] {} run: {} s, {}", flavor(), poison, run.seconds, run.timeSplit);
    return run;
  }

  /** Rejects events marked as poison without sending them; passes the others on. */
  private static final class Rejecting implements Transport {
    private final Transport delegate;

    Rejecting(Transport delegate) {
      this.delegate = delegate;
    }

    @Override
    public SendResult send(OutboxMessage message) {
      return sendBatch(List.of(message)).get(0);
    }

    @Override
    public List<SendResult> sendBatch(List<OutboxMessage> batch) {
      SendResult[] results = new SendResult[batch.size()];
      List<OutboxMessage> healthy = new ArrayList<>();
      List<Integer> positions = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        OutboxEvent e = batch.get(i).event();
        if (e.headers().containsKey(POISON_HEADER)) {
          results[i] = SendResult.reject("poison: the receiver can never accept " + e.id());
        } else {
          healthy.add(batch.get(i));
          positions.add(i);
        }
      }
      if (!healthy.isEmpty()) {
        List<SendResult> sent = delegate.sendBatch(healthy);
        for (int i = 0; i < sent.size(); i++) {
          results[positions.get(i)] = sent.get(i);
        }
      }
      return List.of(results);
    }
  }
}
