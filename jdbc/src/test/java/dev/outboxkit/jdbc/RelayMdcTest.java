package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The relay puts the current event's identifiers into the MDC where there is one current event, and
 * takes them out again so nothing leaks to the next event or the next task of a pooled thread. The
 * behaviour does not depend on the database; H2 keeps it quick.
 */
class RelayMdcTest extends DatabaseTest {

  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }

  /** The outbox keys of the MDC on the calling thread, empty if none is set. */
  private static Map<String, String> outboxMdc() {
    Map<String, String> all = MDC.getCopyOfContextMap();
    Map<String, String> mine = new HashMap<>();
    if (all != null) {
      all.forEach(
          (k, v) -> {
            if (k.startsWith("outbox.")) {
              mine.put(k, v);
            }
          });
    }
    return mine;
  }

  private static Map<String, String> expected(OutboxEvent e) {
    return Map.of(
        OutboxMdc.EVENT_ID, e.id().toString(),
        OutboxMdc.AGGREGATE_TYPE, e.aggregateType(),
        OutboxMdc.AGGREGATE_ID, e.aggregateId(),
        OutboxMdc.EVENT_TYPE, e.eventType());
  }

  private List<OutboxEvent> append(int count) throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      events.add(OutboxEvent.builder("Order", "o-" + i, "OrderPlaced" + i).payload("{}").build());
    }
    try (Connection c = transaction()) {
      Outbox.appendAll(c, events);
      c.commit();
    }
    return events;
  }

  private OutboxRelay.Builder relay(Transport transport) {
    return OutboxRelay.builder(ds, transport)
        .name("mdc")
        .ordered(false)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(2))
        .random(new Random(7));
  }

  @Test
  void send_sees_each_event_in_the_mdc_when_sending_individually() throws Exception {
    Map<String, Map<String, String>> seen = new ConcurrentHashMap<>();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  seen.put(m.event().id().toString(), outboxMdc());
                  return SendResult.delivered();
                });
    List<OutboxEvent> events = append(5);

    try (OutboxRelay relay = relay(transport).sendIndividually(true).build()) {
      assertThat(relay.runOnce()).isEqualTo(5);
    }

    assertThat(seen).hasSize(5);
    for (OutboxEvent e : events) {
      assertThat(seen.get(e.id().toString())).isEqualTo(expected(e));
    }
    assertThat(outboxMdc()).as("the relay's own thread after the round").isEmpty();
  }

  @Test
  void mdc_is_gone_from_the_pooled_send_thread_after_a_batch_of_one() throws Exception {
    List<String> threads = new CopyOnWriteArrayList<>();
    List<Map<String, String>> seen = new CopyOnWriteArrayList<>();
    // Pipelining-style transport: overrides sendBatch, so a batch of several has no current event.
    Transport transport =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage message) {
            throw new AssertionError("sendBatch is overridden");
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            threads.add(Thread.currentThread().getName());
            seen.add(outboxMdc());
            List<SendResult> results = new ArrayList<>();
            batch.forEach(m -> results.add(SendResult.delivered()));
            return results;
          }
        };

    OutboxEvent single;
    try (OutboxRelay relay = relay(transport).build()) {
      single = append(1).get(0);
      assertThat(relay.runOnce()).isEqualTo(1);
      awaitIdleInPool(threads.get(0));
      append(3);
      assertThat(relay.runOnce()).isEqualTo(3);
    }

    assertThat(seen).hasSize(2);
    assertThat(seen.get(0)).as("batch of one").isEqualTo(expected(single));
    assertThat(seen.get(1)).as("batch of three on the same pooled thread").isEmpty();
    assertThat(threads.get(1)).as("same pooled sender thread").isEqualTo(threads.get(0));
  }

  /**
   * The send thread is back in the pool, waiting for work: the result reached the relay a moment
   * before, so on a loaded machine the next batch could otherwise find no idle thread and get a new
   * one, and this test would prove nothing about reuse.
   */
  private static void awaitIdleInPool(String threadName) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().equals(threadName) && t.getState() == Thread.State.TIMED_WAITING) {
          return;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError(threadName + " never went back to the pool");
  }

  @Test
  void listener_hears_retries_and_dead_events_with_the_event_in_the_mdc() throws Exception {
    Map<String, Map<String, String>> heard = new ConcurrentHashMap<>();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
            heard.put("retried", outboxMdc());
          }

          @Override
          public void dead(OutboxEvent event, int attempt, String reason) {
            heard.put("dead", outboxMdc());
          }

          @Override
          public void published(OutboxEvent event, int attempt, Duration lag) {
            heard.put("published", outboxMdc());
          }
        };
    OutboxEvent retried = append(1).get(0);
    RecordingTransport transport =
        new RecordingTransport().respondWith(m -> SendResult.retry("try later", null));

    try (OutboxRelay relay = relay(transport).listener(listener).maxAttempts(2).build()) {
      assertThat(relay.runOnce()).isEqualTo(1);
      execute("UPDATE outbox_event SET available_at = CURRENT_TIMESTAMP");
      assertThat(relay.runOnce()).isEqualTo(1);
    }

    assertThat(heard.get("retried")).isEqualTo(expected(retried));
    assertThat(heard.get("dead")).isEqualTo(expected(retried));
    assertThat(heard).doesNotContainKey("published");
    assertThat(outboxMdc()).isEmpty();
  }
}
