package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * No head-of-line blocking (issue 18, item 3): a batch does not wait for its slowest send. Events
 * whose sends completed are recorded, and their aggregates' successors become claimable, while a
 * slow destination's sends are still under way — within a bounded number of events, each cut off by
 * the send timeout and handed back uncharged, on every way out (drain, close).
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class RelayStragglersContractTest extends RelayDatabaseTest {

  @Test
  void events_confirmed_are_recorded_while_a_slow_send_of_their_batch_is_still_under_way()
      throws Exception {
    List<OutboxEvent> events = append(30, i -> event("a" + i, i));
    SlowTransport transport = new SlowTransport(m -> number(m) == 3);
    try (OutboxRelay relay = relay(transport, "no-hol").batchSize(10).build()) {
      relay.start();
      awaitPublished(29, Duration.ofSeconds(10));
      assertThat(transport.open()).as("the slow send, still under way").isEqualTo(1);
      assertThat(countStatus(EventStatus.IN_FLIGHT)).isOne();

      transport.answerAll(SendResult.delivered());
      awaitPublished(30, Duration.ofSeconds(10));
    }
    assertThat(transport.delivered()).containsExactlyInAnyOrderElementsOf(ids(events));
    assertThat(countStatus(EventStatus.IN_FLIGHT)).isZero();
  }

  @Test
  void in_ordered_mode_a_slow_events_successors_wait_for_it_and_follow_in_order() throws Exception {
    // The hot aggregate's first event and ten other aggregates' heads: one batch, no runs.
    append(11, i -> event(i == 0 ? "hot" : "cold" + i, i));
    SlowTransport transport = new SlowTransport(m -> number(m) == 0 && sends(m) == 1);
    try (OutboxRelay relay = relay(transport, "ordered-no-hol").batchSize(20).build()) {
      relay.start();
      awaitPublished(10, Duration.ofSeconds(10));
      assertThat(transport.open()).isEqualTo(1);
      append(2, i -> event("hot", 100 + i));
      relay.wakeUp();
      Thread.sleep(300); // the relay polls meanwhile: hot's successors are not claimable
      assertThat(transport.sentNumbers()).doesNotContain(100, 101);

      transport.answerAll(SendResult.delivered());
      awaitPublished(13, Duration.ofSeconds(10));
    }
    assertThat(
            transport.deliveredNumbers().stream()
                .filter(n -> n == 0 || n >= 100)
                .collect(Collectors.toList()))
        .as("hot aggregate, in append order")
        .containsExactly(0, 100, 101);
    assertThat(transport.delivered()).hasSize(13);
  }

  @Test
  void a_slow_send_that_fails_holds_back_only_its_aggregate_uncharged_when_it_timed_out()
      throws Exception {
    OutboxEvent slow = append(1, i -> event("slow", 0)).get(0);
    append(9, i -> event("fast" + i, i + 1));
    // The slow send never completes on its own: the send timeout ends it, cancelled.
    SlowTransport transport = new SlowTransport(m -> number(m) == 0 && sends(m) == 1);
    try (OutboxRelay relay =
        relay(transport, "timed-out-straggler")
            .batchSize(10)
            .sendTimeout(Duration.ofMillis(500))
            .leaseDuration(Duration.ofSeconds(10))
            .build()) {
      relay.start();
      awaitPublished(9, Duration.ofSeconds(10));
      awaitPublished(10, Duration.ofSeconds(10)); // sent again after the timeout, answered
    }
    assertThat(transport.cancelled()).as("futures the relay cancelled").isEqualTo(1);
    assertThat(row(slow.id())).containsEntry("status", "PUBLISHED").containsEntry("attempts", 0);
  }

  /**
   * A future completed with an Error (a class missing at run time) or with null is that event's
   * retry: charged once, sent again, delivered; the rest of the batch is not touched.
   */
  @Test
  void a_future_failing_with_an_error_or_null_is_that_events_retry() throws Exception {
    List<OutboxEvent> events = append(10, i -> event("a" + i, i));
    Transport failingFutures =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return SendResult.delivered();
          }

          @Override
          public List<CompletableFuture<SendResult>> sendBatchAsync(List<OutboxMessage> batch) {
            List<CompletableFuture<SendResult>> futures = new ArrayList<>();
            for (OutboxMessage m : batch) {
              CompletableFuture<SendResult> f = new CompletableFuture<>();
              if (m.attempt() == 1 && number(m) == 1) {
                f.completeExceptionally(new NoClassDefFoundError("injected/Missing"));
              } else if (m.attempt() == 1 && number(m) == 2) {
                f.complete(null);
              } else {
                f.complete(SendResult.delivered());
              }
              futures.add(f);
            }
            return futures;
          }
        };
    try (OutboxRelay relay = relay(failingFutures, "failing-futures").batchSize(10).build()) {
      DrainReport report = relay.drainUntilDone(Duration.ofSeconds(10));
      assertThat(report.delivered()).as(report.toString()).isEqualTo(10);
      assertThat(report.retried()).as(report.toString()).isEqualTo(2);
      assertThat(report.timedOut()).isFalse();
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(10);
    assertThat(row(events.get(1).id())).containsEntry("attempts", 1);
    assertThat(row(events.get(2).id())).containsEntry("attempts", 1);
    assertThat(row(events.get(0).id())).containsEntry("attempts", 0);
  }

  @Test
  void drain_returns_once_every_slow_send_has_its_outcome() throws Exception {
    append(20, i -> event("a" + i, i));
    SlowTransport transport = new SlowTransport(m -> number(m) % 10 == 0);
    transport.answerAfter(Duration.ofMillis(300), SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "drain-no-hol").batchSize(10).build()) {
      assertThat(relay.drain()).isEqualTo(20);
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(20);
    assertThat(countStatus(EventStatus.IN_FLIGHT)).isZero();
  }

  @Test
  void close_hands_back_the_slow_sends_uncharged_and_keeps_what_was_confirmed() throws Exception {
    List<OutboxEvent> events = append(20, i -> event("a" + i, i));
    SlowTransport transport = new SlowTransport(m -> number(m) % 10 == 0);
    OutboxRelay relay =
        relay(transport, "close-no-hol")
            .batchSize(10)
            .shutdownTimeout(Duration.ofMillis(300))
            .build();
    relay.start();
    awaitPublished(18, Duration.ofSeconds(10));
    relay.close();

    assertThat(transport.cancelled()).isEqualTo(2);
    assertThat(countStatus(EventStatus.IN_FLIGHT)).isZero();
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(2);
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
    SlowTransport after = new SlowTransport(m -> false);
    try (OutboxRelay next = relay(after, "next").build()) {
      assertThat(next.drain()).as("no lease to wait out").isEqualTo(2);
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(events.size());
  }

  @Test
  void the_sends_left_under_way_are_bounded_by_two_batches() throws Exception {
    append(60, i -> event("a" + i, i));
    // Four events in five are slow; a batch of five keeps one fast event, so each could be cut.
    SlowTransport transport = new SlowTransport(m -> number(m) % 5 != 0);
    transport.answerAfter(Duration.ofMillis(400), SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "bounded").batchSize(5).build()) {
      assertThat(relay.drain()).isEqualTo(60);
    }
    // Two batches' worth left under way, plus the batch being waited for.
    assertThat(transport.maxOpen()).isPositive().isLessThanOrEqualTo(2 * 5 + 5);
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(60);
  }

  private static int number(OutboxMessage m) {
    return Integer.parseInt(m.event().headers().get("n"));
  }

  private static final ConcurrentHashMap<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

  /** How many times this event was sent so far, this time included. */
  private static int sends(OutboxMessage m) {
    return CALLS.computeIfAbsent(m.event().id().toString(), k -> new AtomicInteger()).get();
  }

  private static List<String> ids(List<OutboxEvent> events) {
    return events.stream().map(e -> e.id().toString()).collect(Collectors.toList());
  }

  /**
   * A transport that completes each message at once (delivered) unless it is slow: a slow message's
   * future stays open until {@link #answerAll} (or {@link #answerAfter}'s delay), or the relay
   * cancels it. Keeps order within a batch when asked (it completes in order anyway).
   */
  static final class SlowTransport implements Transport {
    private final Predicate<OutboxMessage> slow;
    private final boolean keepsOrder;
    private final List<CompletableFuture<SendResult>> open = new CopyOnWriteArrayList<>();
    private final List<String> delivered = Collections.synchronizedList(new ArrayList<>());
    private final List<Integer> deliveredNumbers = Collections.synchronizedList(new ArrayList<>());
    private final List<Integer> sentNumbers = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger cancelled = new AtomicInteger();
    private final AtomicInteger maxOpen = new AtomicInteger();
    private volatile Duration answerAfter;
    private volatile SendResult lateAnswer;

    SlowTransport(Predicate<OutboxMessage> slow) {
      this(slow, false);
    }

    SlowTransport(Predicate<OutboxMessage> slow, boolean keepsOrder) {
      this.slow = slow;
      this.keepsOrder = keepsOrder;
    }

    /** Slow sends complete by themselves after {@code delay}, with {@code result}. */
    void answerAfter(Duration delay, SendResult result) {
      this.lateAnswer = result;
      this.answerAfter = delay;
    }

    @Override
    public SendResult send(OutboxMessage message) {
      return sendBatchAsync(List.of(message)).get(0).join();
    }

    @Override
    public List<CompletableFuture<SendResult>> sendBatchAsync(List<OutboxMessage> batch) {
      List<CompletableFuture<SendResult>> futures = new ArrayList<>();
      for (OutboxMessage m : batch) {
        CALLS
            .computeIfAbsent(m.event().id().toString(), k -> new AtomicInteger())
            .incrementAndGet();
        sentNumbers.add(number(m));
        // The relay gets a future that completes only after the delivery is recorded here: a
        // future runs its last-registered callbacks first, so recording in a callback of the
        // relay's own future could come after the relay acknowledged the event and sent its
        // successors, and the recorded order would not be the order the relay learned of them.
        CompletableFuture<SendResult> answer = new CompletableFuture<>();
        AtomicBoolean withdrawn = new AtomicBoolean();
        CompletableFuture<SendResult> f =
            answer.whenComplete(
                (r, t) -> {
                  if (!withdrawn.get() && r != null && r.isDelivered()) {
                    delivered.add(m.event().id().toString());
                    deliveredNumbers.add(number(m));
                  }
                });
        f.whenComplete(
            (r, t) -> {
              if (f.isCancelled()) {
                withdrawn.set(true);
                cancelled.incrementAndGet();
              }
              open.remove(answer);
            });
        if (slow.test(m)) {
          open.add(answer);
          maxOpen.accumulateAndGet(open.size(), Math::max);
          Duration after = answerAfter;
          if (after != null) {
            CompletableFuture.delayedExecutor(after.toMillis(), TimeUnit.MILLISECONDS)
                .execute(() -> answer.complete(lateAnswer));
          }
        } else {
          answer.complete(SendResult.delivered());
        }
        futures.add(f);
      }
      return futures;
    }

    @Override
    public boolean keepsOrderWithinBatch() {
      return keepsOrder;
    }

    void answerAll(SendResult result) {
      for (CompletableFuture<SendResult> f : open) {
        f.complete(result);
      }
    }

    int open() {
      return open.size();
    }

    int maxOpen() {
      return maxOpen.get();
    }

    int cancelled() {
      return cancelled.get();
    }

    List<String> delivered() {
      synchronized (delivered) {
        return new ArrayList<>(delivered);
      }
    }

    List<Integer> deliveredNumbers() {
      synchronized (deliveredNumbers) {
        return new ArrayList<>(deliveredNumbers);
      }
    }

    List<Integer> sentNumbers() {
      synchronized (sentNumbers) {
        return new ArrayList<>(sentNumbers);
      }
    }
  }
}
