package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RecordingListener;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Scenario 3, broker outage (guarantee 5). Kafka is stopped in the middle of a drain by two relays
 * and kept away for {@value #OUTAGE_SECONDS} s while the application goes on committing events,
 * then started again. Nobody touches the relays. Nothing may be lost or DEAD, the outage must not
 * be charged to the events' attempt budgets, the relays must find the broker again by themselves,
 * and their backoff must keep what they throw at the dead broker small: the number of batches and
 * probes handed to the transport during the outage, and the connection attempts that reach the
 * broker's port (held meanwhile by a {@link ConnectionCounter}), are counted.
 */
class BrokerOutageTest extends FaultTest {
  private static final int EVENTS = 10_000;
  private static final int DURING_OUTAGE = 1_000;
  private static final int OUTAGE_SECONDS = 12;
  private static final int BATCH = 200;

  @Test
  void loses_nothing_charges_nothing_and_backs_off_when_kafka_is_down_mid_drain() throws Exception {
    KafkaTestBroker broker = closeLater(KafkaTestBroker.startNew("outage-" + flavor()));
    String type = unique("Shipment");
    String topic = createTopic(broker, type);
    long start = System.nanoTime();
    List<OutboxEvent> events = new ArrayList<>(append(EVENTS, 1_000, i -> event(type, i, 200)));
    RecordingListener counters = new RecordingListener();
    List<CountingTransport> transports = new ArrayList<>();
    for (int r = 1; r <= 2; r++) {
      String name = "outage-" + r;
      CountingTransport transport =
          closeLater(
              new CountingTransport(
                  KafkaTransports.create(broker.bootstrapServers(), name, Duration.ofSeconds(4))));
      transports.add(transport);
      closeLater(
              OutboxRelay.builder(ds, transport)
                  .name(name)
                  .batchSize(BATCH)
                  .pollInterval(Duration.ofMillis(100))
                  .leaseDuration(Duration.ofSeconds(20))
                  .sendTimeout(Duration.ofSeconds(4))
                  .outageBackoff(Duration.ofMillis(250), Duration.ofSeconds(3))
                  .listener(counters)
                  .build())
          .start();
    }

    awaitPublished(2_000, Duration.ofSeconds(60));
    long stopping = System.nanoTime();
    broker.stop();
    long down = System.nanoTime();
    long publishedAtStop = count(EventStatus.PUBLISHED);
    int connectionAttempts;
    try (ConnectionCounter counter = ConnectionCounter.bind(broker.port())) {
      // Committed while the broker is away: these must get through too.
      events.addAll(append(DURING_OUTAGE, 100, i -> event(type, EVENTS + i, 200)));
      sleep(Math.max(0, OUTAGE_SECONDS * 1000L - (System.nanoTime() - down) / 1_000_000));
      connectionAttempts = counter.accepted();
    }
    long up = System.nanoTime();
    double outage = (up - down) / 1e9;
    long publishedAtRestart = count(EventStatus.PUBLISHED);
    int outageReports = counters.unavailable.get();
    broker.start();

    awaitPublished(EVENTS + DURING_OUTAGE, Duration.ofMinutes(2));
    double seconds = secondsSince(start);

    // What the relays threw at the dead broker, and what the shutdown caught in flight: a batch
    // the broker wrote but could no longer acknowledge is sent again later (a lost ack).
    long batchesSent = 0;
    long probesSent = 0;
    long eventsSent = 0;
    long unconfirmedAtStop = 0;
    for (CountingTransport t : transports) {
      for (CountingTransport.Call c : t.calls()) {
        if (c.startNanos - down >= 0 && c.startNanos - up < 0) {
          batchesSent++;
          probesSent += c.size == 1 ? 1 : 0;
          eventsSent += c.size;
        }
        if (c.overlaps(stopping, down)) {
          unconfirmedAtStop += c.size - c.delivered;
        }
      }
    }
    long maxAttempts = queryLong("SELECT MAX(attempts) FROM outbox_event");
    TopicCopies copies = TopicCopies.read(broker, topic);
    long lost = copies.lost(events);
    long duplicates = copies.duplicates();
    String backoff =
        String.format(
            Locale.ROOT,
            "%.1f s outage: %d batches handed to the transport (%d single-event probes, %d events),"
                + " %d outage reports, %d connection attempts (%.1f/s); %d published meanwhile;"
                + " max attempts %d; %d events unconfirmed by the stopping broker",
            outage,
            batchesSent,
            probesSent,
            eventsSent,
            outageReports,
            connectionAttempts,
            connectionAttempts / outage,
            publishedAtRestart - publishedAtStop,
            maxAttempts,
            unconfirmedAtStop);
    log.info("[{}] {}", flavor(), backoff);
    writeReport("3 broker outage", events, copies, seconds, backoff);

    assertThat(lost).as("events missing from the topic").isZero();
    assertThat(count(EventStatus.DEAD)).isZero();
    assertThat(counters.dead.get()).isZero();
    assertThat(counters.recovered.get()).as("relays saw the broker come back").isPositive();
    // attempts counts an event's own failed sends. An outage is not charged; only a batch in
    // flight when the broker went away, or one that met it still electing leaders when it came
    // back, may have been: at most 2.
    assertThat(maxAttempts).isBetween(0L, 2L);
    // Backoff: a relay that kept polling would hand over a full batch every 100 ms, ~240 batches
    // in this outage. Allowed: the batch each relay had in flight, one more that met the outage
    // first as plain failures, and single-event probes at the breaker's pace (pauses from 250 ms
    // doubling to 3 s, jittered, never below a tenth of their cap).
    assertThat(batchesSent - probesSent)
        .as("full batches sent to the dead broker")
        .isLessThanOrEqualTo(4);
    assertThat(probesSent).as("probes sent to the dead broker").isLessThanOrEqualTo(2L * 40);
    assertThat(duplicates)
        .as("duplicates beyond the events the stopping broker left unconfirmed")
        .isLessThanOrEqualTo(unconfirmedAtStop);
    // The producers reconnect on their own backoff (50 ms doubling to 500 ms here); the relays
    // must not add to it by creating producers or hammering the client.
    assertThat(connectionAttempts / outage).as("connection attempts per second").isLessThan(10);
  }
}
