package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.http.WebhookTransport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RecordingListener;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Scenario 5, slow and hanging webhook receivers. Two relays, each with its own webhook transport,
 * deliver to a {@link WebhookReceiver} that first stalls every request forever, or answers some
 * only after the transport's request timeout. Each send must be cut off by a time limit well inside
 * the lease, events must be retried and delivered once the receiver behaves, none may go DEAD, and
 * no send may outlive its lease: the receiver must never see two open requests for one event, and
 * no acknowledgement may find its lease lost.
 */
class SlowWebhookTest extends FaultTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final int EVENTS = 1_000;
  private static final Duration LEASE = Duration.ofSeconds(6);

  @Test
  void cuts_each_send_at_the_send_timeout_and_delivers_later_when_the_receiver_stalls_forever()
      throws Exception {
    WebhookReceiver receiver = closeLater(new WebhookReceiver(0));
    long start = System.nanoTime();
    long stallUntil = start + Duration.ofSeconds(8).toNanos();
    receiver.behave(
        id ->
            System.nanoTime() - stallUntil < 0
                ? WebhookReceiver.Mode.STALL
                : WebhookReceiver.Mode.ANSWER);
    // The transport would wait 30 s for an answer: the relay's own send timeout must end it.
    drainAndReport(
        "5 webhook stalls forever", receiver, start, Duration.ofSeconds(30), Duration.ofSeconds(2));

    assertThat(receiver.stalled()).as("requests that met the stalling receiver").isPositive();
    // Each extra copy the receiver got is a stalled request that the relay abandoned.
    assertThat(duplicates(receiver)).isLessThanOrEqualTo(receiver.abandoned());
  }

  @Test
  void retries_and_delivers_when_the_receiver_answers_only_after_the_request_timeout()
      throws Exception {
    // Answers 3 s late, well after the transport's 1 s request timeout (a loaded machine may fire
    // that timeout late), the first time it sees a fifth of the events; at once otherwise.
    WebhookReceiver receiver = closeLater(new WebhookReceiver(3_000));
    receiver.behave(
        id -> {
          boolean first = !receiver.seenBefore(id);
          return first && Math.floorMod(id.hashCode(), 5) == 0
              ? WebhookReceiver.Mode.LATE
              : WebhookReceiver.Mode.ANSWER;
        });
    long start = System.nanoTime();
    drainAndReport(
        "5 webhook answers late", receiver, start, Duration.ofSeconds(1), Duration.ofSeconds(4));

    assertThat(receiver.late()).as("requests answered late").isPositive();
    // Every late answer came after the client gave up, and each such event was received once more
    // when it was retried; nothing else was received twice.
    assertThat(receiver.abandoned()).isEqualTo(receiver.late());
    assertThat(duplicates(receiver)).isEqualTo(receiver.late());
  }

  /**
   * Appends the events and has two relays deliver them all to the receiver; then checks what both
   * variants promise and writes the result row.
   */
  private void drainAndReport(
      String scenario,
      WebhookReceiver receiver,
      long start,
      Duration requestTimeout,
      Duration sendTimeout)
      throws Exception {
    List<OutboxEvent> events = append(EVENTS, 100, i -> event("Hook", i, 100));
    RecordingListener counters = startRelays(receiver, requestTimeout, sendTimeout);
    awaitPublished(EVENTS, Duration.ofMinutes(2));
    report(scenario, events, receiver, counters, start, sendTimeout);
  }

  private RecordingListener startRelays(
      WebhookReceiver receiver, Duration requestTimeout, Duration sendTimeout) {
    RecordingListener counters = new RecordingListener();
    for (int r = 1; r <= 2; r++) {
      String name = "hook-" + r;
      WebhookTransport transport =
          closeLater(
              WebhookTransport.builder(receiver.url(), SECRET)
                  .name(name)
                  .allowHttp()
                  .allowPrivateAddresses()
                  .requestTimeout(requestTimeout)
                  .circuitOpenDuration(Duration.ofSeconds(1))
                  .build());
      closeLater(
              OutboxRelay.builder(ds, transport)
                  .name(name)
                  .batchSize(50)
                  .pollInterval(Duration.ofMillis(100))
                  .leaseDuration(LEASE)
                  .sendTimeout(sendTimeout)
                  .retryBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
                  .outageBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
                  .shutdownTimeout(Duration.ofSeconds(3))
                  .listener(counters)
                  .build())
          .start();
    }
    return counters;
  }

  /** Checks what both variants promise, and writes the result row. */
  private void report(
      String scenario,
      List<OutboxEvent> events,
      WebhookReceiver receiver,
      RecordingListener counters,
      long start,
      Duration sendTimeout) {
    double seconds = secondsSince(start);
    long longestOpen = receiver.longestOpenMillis();
    Map<String, Integer> receipts = receiver.receipts();
    long lost = events.stream().filter(e -> !receipts.containsKey(e.id().toString())).count();
    long dead = count(EventStatus.DEAD);
    new FaultReport(
            scenario,
            database(),
            events.size(),
            events.size() - lost,
            duplicates(receiver),
            dead,
            lost,
            seconds,
            String.format(
                Locale.ROOT,
                "%d stalled, %d late, %d abandoned by the client; longest send %d ms (sendTimeout"
                    + " %d ms), longest open request %d ms (lease %d ms); %d overlapping requests,"
                    + " %d leases lost, %d charged retries, %d outage reports",
                receiver.stalled(),
                receiver.late(),
                receiver.abandoned(),
                counters.maxSendMillis.get(),
                sendTimeout.toMillis(),
                longestOpen,
                LEASE.toMillis(),
                receiver.overlaps().size(),
                counters.leaseLost.get(),
                counters.retried.get(),
                counters.unavailable.get()))
        .write();

    assertThat(lost).as("events the receiver never got").isZero();
    assertThat(dead).isZero();
    assertThat(counters.maxSendMillis.get())
        .as("longest send, bounded by the send timeout and well inside the lease")
        .isLessThan(LEASE.toMillis());
    assertThat(longestOpen).as("longest a request stayed open").isLessThan(LEASE.toMillis());
    assertThat(receiver.overlaps()).as("events with two requests open at once").isEmpty();
    assertThat(counters.leaseLost.get()).as("acknowledgements that found the lease lost").isZero();
  }

  private static long duplicates(WebhookReceiver receiver) {
    Map<String, Integer> receipts = receiver.receipts();
    return receipts.values().stream().mapToLong(Integer::longValue).sum() - receipts.size();
  }
}
