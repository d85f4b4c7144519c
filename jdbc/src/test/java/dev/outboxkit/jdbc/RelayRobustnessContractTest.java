package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.internal.EngineAccess;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.MutableClock;
import dev.outboxkit.testkit.StatementHook;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What production does to a relay, on every database: leases lost by stalled relays, relays that
 * keep dying on one event, transports and listeners that throw {@code Error}s or answer wrongly,
 * sends that overrun their time or ignore interrupts, closes at awkward moments, and statements
 * held up on the server. (Network black holes and database crashes are in the fault-injection
 * suite.)
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class RelayRobustnessContractTest extends RelayDatabaseTest {
  /** Bound of the waits for relays; generous for a loaded machine, never a timing under test. */
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  // ------------------------------------------------------------------ attempt accounting

  @Test
  void a_lease_lost_by_a_relay_that_stalled_after_delivering_charges_no_attempt() throws Exception {
    List<OutboxEvent> events = append(20, i -> event("a" + i, i));
    // A relay claimed them, delivered them, and stalled before recording it.
    assertThat(EngineAccess.claim(ds, "stalled@1/1", 20, true, Duration.ofMinutes(1)))
        .isEqualTo(20);
    expireLeases();
    Set<UUID> failedOnce = ConcurrentHashMap.newKeySet();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    failedOnce.add(m.event().id())
                        ? SendResult.retry("partition leader moved for " + m.event().id(), null)
                        : SendResult.delivered());

    try (OutboxRelay relay = relay(transport, "new-owner").maxAttempts(2).build()) {
      relay.drain();
      makeRetriesDue();
      relay.drain();
    }

    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(20);
    assertThat(countStatus(EventStatus.DEAD)).as("one transient failure each, budget 2").isZero();
    assertThat(row(events.get(0).id()))
        .containsEntry("attempts", 1)
        .containsEntry("lease_losses", 1);
  }

  @Test
  void an_event_whose_relays_keep_dying_on_it_is_quarantined_after_the_lease_loss_limit()
      throws Exception {
    OutboxEvent poison = append(1, i -> event("a", i)).get(0);
    for (int loss = 1; loss < OutboxRelay.LEASE_LOSSES_BEFORE_DEAD; loss++) {
      assertThat(EngineAccess.claim(ds, "dies@" + loss + "/1", 10, true, Duration.ofMinutes(1)))
          .isEqualTo(1);
      expireLeases(); // the relay crashed while sending it
      EngineAccess.Reclaimed reclaimed =
          EngineAccess.reclaimExpiredLeases(ds, OutboxRelay.LEASE_LOSSES_BEFORE_DEAD);
      assertThat(reclaimed.pending).isEqualTo(1);
      assertThat(reclaimed.dead).isZero();
    }
    assertThat(row(poison.id()))
        .containsEntry("status", "PENDING")
        .containsEntry("attempts", 0)
        .containsEntry("lease_losses", OutboxRelay.LEASE_LOSSES_BEFORE_DEAD - 1);
    assertThat(EngineAccess.claim(ds, "dies@last/1", 10, true, Duration.ofMinutes(1))).isEqualTo(1);
    expireLeases();

    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "survivor").build()) {
      assertThat(relay.drain()).isZero();
    }
    assertThat(transport.attempts()).as("never sent again").isEmpty();
    assertThat(row(poison.id())).containsEntry("status", "DEAD");
    assertThat((String) row(poison.id()).get("last_error"))
        .contains("lease expired " + OutboxRelay.LEASE_LOSSES_BEFORE_DEAD + " times");
  }

  @Test
  void a_recovery_of_recent_leases_reads_only_its_window_and_a_full_one_reads_every_lease()
      throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    assertThat(EngineAccess.claim(ds, "gone@1/1", 10, true, Duration.ofMinutes(1))).isEqualTo(1);
    expireLeases(); // an hour ago
    int losses = OutboxRelay.LEASE_LOSSES_BEFORE_DEAD;

    EngineAccess.Reclaimed recent =
        EngineAccess.reclaimExpiredLeases(ds, losses, Duration.ofMinutes(30));
    assertThat(recent.pending).as("ran out before the window").isZero();
    assertThat(row(e.id())).containsEntry("status", "IN_FLIGHT");
    assertThat(EngineAccess.reclaimExpiredLeases(ds, losses, Duration.ofHours(2)).pending)
        .isEqualTo(1);

    // Quarantine (one more loss is the limit here) reads the same window.
    assertThat(EngineAccess.claim(ds, "gone@2/1", 10, true, Duration.ofMinutes(1))).isEqualTo(1);
    expireLeases();
    assertThat(EngineAccess.reclaimExpiredLeases(ds, 2, Duration.ofMinutes(30)).dead).isZero();
    assertThat(row(e.id())).containsEntry("status", "IN_FLIGHT");
    assertThat(EngineAccess.reclaimExpiredLeases(ds, 2, Duration.ZERO).dead).isEqualTo(1);
    assertThat(row(e.id())).containsEntry("status", "DEAD").containsEntry("lease_losses", 2);
  }

  // --------------------------------------------------------------- Throwable discipline

  @Test
  void an_error_thrown_by_send_for_one_event_is_that_events_failure_not_the_batchs()
      throws Exception {
    List<OutboxEvent> events = append(50, i -> event("a" + i, i));
    UUID poison = events.get(7).id();
    AtomicInteger sends = new AtomicInteger();
    Transport transport =
        m -> {
          sends.incrementAndGet();
          if (m.event().id().equals(poison)) {
            throw new NoClassDefFoundError("com/acme/codec/AvroCodec");
          }
          return SendResult.delivered();
        };

    try (OutboxRelay relay = relay(transport, "errors").maxAttempts(2).build()) {
      relay.drain();
      makeRetriesDue();
      relay.drain();
    }

    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(49);
    assertThat(row(poison)).containsEntry("status", "DEAD").containsEntry("attempts", 2);
    assertThat((String) row(poison).get("last_error")).contains("NoClassDefFoundError");
    assertThat(sends.get()).as("each healthy event sent once, the poison twice").isEqualTo(51);
  }

  @Test
  void an_error_thrown_by_a_pipelining_send_batch_is_placed_on_its_event() throws Exception {
    List<OutboxEvent> events = append(50, i -> event("a" + i, i));
    UUID poison = events.get(7).id();
    AtomicInteger sends = new AtomicInteger();
    Transport transport =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            sends.incrementAndGet();
            return SendResult.delivered();
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            for (OutboxMessage m : batch) {
              if (m.event().id().equals(poison)) {
                throw new StackOverflowError(); // e.g. serialising this payload
              }
            }
            return Transport.super.sendBatch(batch);
          }
        };

    try (OutboxRelay relay = relay(transport, "batch-errors").maxAttempts(2).build()) {
      relay.drain();
      makeRetriesDue();
      relay.drain();
    }

    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(49);
    assertThat(row(poison)).containsEntry("status", "DEAD");
    assertThat((String) row(poison).get("last_error")).contains("StackOverflowError");
    assertThat(sends.get()).as("no healthy event sent twice").isEqualTo(49);
  }

  @Test
  void a_result_list_of_the_wrong_size_is_answered_event_by_event() throws Exception {
    append(50, i -> event("a" + i, i));
    AtomicInteger sends = new AtomicInteger();
    Transport shortByOne =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            sends.incrementAndGet();
            return SendResult.delivered();
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            List<SendResult> results = Transport.super.sendBatch(batch);
            return batch.size() > 1 ? results.subList(0, results.size() - 1) : results;
          }
        };

    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    RelayListener heard =
        new RelayListener() {
          @Override
          public void transportMisbehaved(String problem) {
            problems.add(problem);
          }
        };
    try (OutboxRelay relay = relay(shortByOne, "short").listener(heard).build()) {
      assertThat(relay.runOnce()).isEqualTo(50);
    }

    assertThat(countStatus(EventStatus.PUBLISHED)).as("all in the one round").isEqualTo(50);
    assertThat(sends.get()).as("the batch, then each event once more").isEqualTo(100);
    assertThat(problems)
        .as("the transport's bug is reported, naming the transport")
        .singleElement()
        .asString()
        .contains("transport " + shortByOne.getClass().getName())
        .contains("answered a batch of 50 messages with 49 results");
  }

  @Test
  void a_transport_that_breaks_its_promise_of_order_is_reported_and_sent_waves_after()
      throws Exception {
    // Aggregates a and b, three events each, claimed as runs in one batch.
    append(6, i -> event(i % 2 == 0 ? "a" : "b", i));
    AtomicBoolean failedOnce = new AtomicBoolean();
    List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());
    Transport liar =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return sendBatch(List.of(m)).get(0);
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            List<String> aggregates = new ArrayList<>();
            List<SendResult> results = new ArrayList<>();
            for (OutboxMessage m : batch) {
              aggregates.add(m.event().aggregateId());
              // The first event of a fails once, and the later ones of a go through anyway.
              boolean fail =
                  m.event().aggregateId().equals("a") && failedOnce.compareAndSet(false, true);
              results.add(
                  fail ? SendResult.retry("broker refused it", null) : SendResult.delivered());
            }
            batches.add(aggregates);
            return results;
          }

          @Override
          public boolean keepsOrderWithinBatch() {
            return true;
          }
        };
    List<String> problems = Collections.synchronizedList(new ArrayList<>());
    RelayListener heard =
        new RelayListener() {
          @Override
          public void transportMisbehaved(String problem) {
            problems.add(problem);
          }
        };
    try (OutboxRelay relay = relay(liar, "liar").ordered(true).listener(heard).build()) {
      relay.runOnce();
      assertThat(batches).as("one batch with both runs").hasSize(1);
      assertThat(batches.get(0)).hasSize(6);
      assertThat(problems).as("both later events of a reported").hasSize(2);
      assertThat(problems.get(0))
          .contains("transport " + liar.getClass().getName())
          .contains("from now on");

      append(6, i -> event(i % 2 == 0 ? "c" : "d", 10 + i));
      makeRetriesDue();
      batches.clear();
      relay.drain();
    }
    assertThat(batches).as("sent in waves now").isNotEmpty();
    for (List<String> batch : batches) {
      assertThat(batch).as("one event per aggregate per call: " + batches).doesNotHaveDuplicates();
    }
  }

  @Test
  void a_listener_that_throws_errors_never_stops_the_relay() throws Exception {
    append(300, i -> event("a" + (i % 30), i));
    RelayListener broken =
        new RelayListener() {
          @Override
          public void batchClaimed(int size, Duration claimTime) {
            throw new NoClassDefFoundError("io/micrometer/core/instrument/Timer");
          }

          @Override
          public void published(OutboxEvent event, int attempt, Duration lag) {
            throw new IllegalStateException("meter registry closed");
          }
        };
    try (OutboxRelay relay =
        relay(new RecordingTransport(), "broken-metrics").listener(broken).build()) {
      relay.start();
      awaitPublished(300, Duration.ofSeconds(60));
      assertThat(relay.state()).isEqualTo(OutboxRelay.State.RUNNING);
    }
  }

  // ------------------------------------------------------------------------- lifecycle

  @Test
  void every_method_but_close_fails_fast_after_close_and_claims_nothing() throws Exception {
    append(3, i -> event("a" + i, i));
    RecordingTransport transport = new RecordingTransport();
    OutboxRelay relay = relay(transport, "closed").build();
    assertThat(relay.state()).isEqualTo(OutboxRelay.State.NEW);
    relay.close();

    assertThat(relay.state()).isEqualTo(OutboxRelay.State.CLOSED);
    assertThatThrownBy(relay::runOnce)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(relay::drain).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(relay::start).isInstanceOf(IllegalStateException.class);
    relay.close(); // idempotent
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(3);
    assertThat(transport.attempts()).isEmpty();
  }

  @Test
  void close_while_a_claim_is_running_hands_the_batch_back_unsent() throws Exception {
    append(200, i -> event("a" + (i % 20), i));
    AtomicReference<OutboxRelay> relayRef = new AtomicReference<>();
    CountDownLatch claiming = new CountDownLatch(1);
    // The claim statement has run; the relay is closed before its transaction commits.
    DataSource holding =
        StatementHook.after(
            ds,
            "SKIP LOCKED",
            () -> {
              claiming.countDown();
              long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
              while (relayRef.get().state() != OutboxRelay.State.CLOSED
                  && System.nanoTime() < deadline) {
                sleep(5);
              }
            });
    RecordingTransport transport = new RecordingTransport();
    OutboxRelay relay =
        OutboxRelay.builder(holding, transport)
            .name("closing")
            .shutdownTimeout(Duration.ofSeconds(5))
            .build();
    relayRef.set(relay);
    relay.start();
    assertThat(claiming.await(10, TimeUnit.SECONDS)).isTrue();

    long start = System.nanoTime();
    relay.close();
    Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).as("close waited for nothing but the claim").isLessThan(Duration.ofSeconds(5));
    assertThat(transport.attempts()).as("nothing sent after close").isEmpty();
    assertThat(countStatus(EventStatus.IN_FLIGHT)).as("no row waits for its lease").isZero();
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(200);
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
  }

  @Test
  void database_failures_between_full_rounds_each_pause_the_relay_only_briefly() throws Exception {
    append(600, i -> event("a" + (i % 50), i));
    AtomicInteger claims = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    // Every third claim fails, with full rounds acknowledged between the failures. The pause after
    // a database failure doubles only over failures in a row: were it to grow over these ten, from
    // 200 ms to its 30 s ceiling, the drain would take about two minutes instead of seconds.
    DataSource flaky =
        StatementHook.failing(
            ds,
            "SKIP LOCKED",
            () -> {
              if (claims.incrementAndGet() % 3 != 0) {
                return false;
              }
              failed.incrementAndGet();
              return true;
            });
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder(flaky, transport).name("flaky").batchSize(20).build()) {
      relay.start();
      awaitPublished(600, Duration.ofSeconds(30));
    }
    assertThat(failed.get()).as("claims that failed").isGreaterThanOrEqualTo(9);
    assertThat(countStatus(EventStatus.IN_FLIGHT)).as("a failed claim holds nothing").isZero();
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).as("nothing charged").isZero();
  }

  @Test
  void a_claim_failing_in_the_acknowledgements_transaction_loses_no_acknowledgement()
      throws Exception {
    append(20, i -> event("hot", i));
    AtomicInteger claims = new AtomicInteger();
    // The second claim is the first to share its transaction with an acknowledgement (one hot
    // aggregate: a batch with runs claims nothing ahead); it throws after its statement ran.
    DataSource failingOnce =
        StatementHook.after(
            ds,
            "SKIP LOCKED",
            () -> {
              if (claims.incrementAndGet() == 2) {
                throw new IllegalStateException("injected failure of a claim");
              }
            });
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder(failingOnce, transport)
            .name("fold-failure")
            .batchSize(5)
            .ordered(true)
            .build()) {
      int handled = 0;
      for (int round = 0; round < 10 && handled < 20; round++) {
        handled += relay.drain();
      }
      assertThat(handled).isEqualTo(20);
    }
    assertThat(claims.get()).as("claim statements run").isGreaterThan(2);
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(20);
    assertThat(countStatus(EventStatus.IN_FLIGHT)).as("no row waits for its lease").isZero();
    assertThat(transport.deliveredEvents()).as("each sent once").hasSize(20);
  }

  // ------------------------------------------------------------------ sends that overrun

  @Test
  void a_batch_that_overran_its_time_keeps_what_was_confirmed_and_sends_no_more() throws Exception {
    List<OutboxEvent> events = append(10, i -> event("a" + i, i));
    UUID slow = events.get(5).id();
    CountDownLatch release = new CountDownLatch(1);
    List<UUID> sent = Collections.synchronizedList(new ArrayList<>());
    Transport transport =
        m -> {
          sent.add(m.event().id());
          if (m.event().id().equals(slow) && release.getCount() > 0) {
            try {
              release.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return SendResult.retry("interrupted", null);
            }
          }
          return SendResult.delivered();
        };

    try (OutboxRelay relay =
        relay(transport, "overrun").sendTimeout(Duration.ofMillis(300)).build()) {
      assertThat(relay.runOnce()).isEqualTo(10);
      assertThat(sent).as("sending stopped at the deadline").hasSize(6);
      assertThat(countStatus(EventStatus.PUBLISHED)).as("the confirmed five").isEqualTo(5);
      assertThat(row(slow)).containsEntry("status", "PENDING").containsEntry("attempts", 0);
      release.countDown();
      relay.drain();
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(10);
    assertThat(sent).as("only the unconfirmed one was sent again").hasSize(11);
  }

  @Test
  void a_send_that_ignores_interrupts_costs_a_bounded_number_of_threads() throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    CountDownLatch release = new CountDownLatch(1);
    Transport stubborn =
        m -> {
          while (true) {
            try {
              release.await();
              return SendResult.delivered();
            } catch (InterruptedException ignored) {
              // deliberately deaf to the relay's interrupt
            }
          }
        };
    AtomicInteger mostStuck = new AtomicInteger();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void sendAbandoned(int stuck) {
            mostStuck.accumulateAndGet(stuck, Math::max);
          }
        };
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (OutboxRelay relay =
        relay(stubborn, "stubborn")
            .clock(clock)
            .listener(listener)
            .sendTimeout(Duration.ofMillis(100))
            .build()) {
      for (int i = 0; i < 8; i++) {
        makeRetriesDue();
        relay.runOnce();
        clock.advance(Duration.ofMinutes(1)); // past any outage pause
      }
      assertThat(sendThreads("stubborn")).hasSizeLessThanOrEqualTo(OutboxRelay.MAX_SEND_THREADS);
      assertThat(mostStuck.get()).isEqualTo(OutboxRelay.MAX_SEND_THREADS);
      assertThat(row(e.id())).containsEntry("status", "PENDING").containsEntry("attempts", 0);
      release.countDown();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!sendThreads("stubborn").isEmpty() && System.nanoTime() < deadline) {
      sleep(20);
    }
    assertThat(sendThreads("stubborn")).as("released threads end").isEmpty();
  }

  // ------------------------------------------------------------------ one destination down

  @Test
  void a_destination_that_is_down_holds_back_only_its_own_events_uncharged() throws Exception {
    List<OutboxEvent> down = append(20, i -> tenantEvent("TenantA", "a" + (i % 4), i));
    AtomicBoolean endpointADown = new AtomicBoolean(true);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().aggregateType().equals("TenantA") && endpointADown.get()
                        ? SendResult.unavailable("connection refused", "webhook endpoint A")
                        : SendResult.delivered());
    AtomicInteger heldReports = new AtomicInteger();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void destinationUnavailable(String scope, int events, Duration pause) {
            heldReports.incrementAndGet();
          }
        };
    try (OutboxRelay relay =
        relay(transport, "tenants")
            .listener(listener)
            .outageBackoff(Duration.ofMillis(200), Duration.ofSeconds(1))
            .build()) {
      relay.start();
      Await.until(() -> heldReports.get() > 0, PATIENCE, "endpoint A met down");
      List<OutboxEvent> healthy = append(20, i -> tenantEvent("TenantB", "b" + (i % 4), i));
      relay.wakeUp();
      long appended = System.nanoTime();
      Await.until(
          () -> delivered(transport, "TenantB") == 20,
          PATIENCE,
          "every event of the healthy endpoint delivered while the other is down");
      assertThat(Duration.ofNanos(System.nanoTime() - appended))
          .as("the healthy endpoint's events went out at once, not after the other's pauses")
          .isLessThan(Duration.ofSeconds(3));
      assertThat(delivered(transport, "TenantA")).isZero();
      assertThat(count("SELECT MAX(attempts) FROM outbox_event")).as("nothing charged").isZero();
      assertThat(countStatus(EventStatus.DEAD)).isZero();
      assertThat(healthy).hasSize(20);

      endpointADown.set(false);
      Await.until(
          () -> countStatus(EventStatus.PUBLISHED) == 40,
          PATIENCE,
          "endpoint A's events after recovery");
    }
    // Order per aggregate held across the holds.
    Map<String, List<Integer>> seen = new HashMap<>();
    for (OutboxEvent e : transport.deliveredEvents()) {
      if (e.aggregateType().equals("TenantA")) {
        seen.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>())
            .add(Integer.parseInt(e.headers().get("n")));
      }
    }
    for (List<Integer> ns : seen.values()) {
      assertThat(ns).isSorted().doesNotHaveDuplicates();
    }
    assertThat(seen.values().stream().mapToInt(List::size).sum()).isEqualTo(down.size());
  }

  @Test
  void one_rounds_events_of_a_down_destination_are_held_together_uncharged() throws Exception {
    append(6, i -> tenantEvent("TenantA", "a" + i, i));
    append(2, i -> tenantEvent("TenantB", "b" + i, i));
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().aggregateType().equals("TenantA")
                        ? SendResult.unavailable("connection refused", "webhook endpoint A")
                        : SendResult.delivered());

    try (OutboxRelay relay =
        relay(transport, "holder")
            .outageBackoff(Duration.ofSeconds(10), Duration.ofSeconds(10))
            .build()) {
      assertThat(relay.runOnce()).isEqualTo(8);
    }

    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(2);
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(6);
    // One hold for the destination's events of the round (one statement records them), in the
    // future, uncharged, with the transport's reason.
    assertThat(
            count("SELECT COUNT(DISTINCT available_at) FROM outbox_event WHERE status = 'PENDING'"))
        .isEqualTo(1);
    assertThat(relay(transport, "prober").build().runOnce())
        .as("held: not claimable at once")
        .isZero();
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
    // The relay's hold note: since when it met the destination down, then the reason.
    assertThat(
            count(
                "SELECT COUNT(*) FROM outbox_event WHERE status = 'PENDING'"
                    + " AND last_error LIKE 'destination down since %: connection refused'"))
        .isEqualTo(6);
  }

  private static OutboxEvent tenantEvent(String tenant, String aggregateId, int n) {
    return OutboxEvent.builder(tenant, aggregateId, "OrderPlaced")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .build();
  }

  private static long delivered(RecordingTransport transport, String tenant) {
    return transport.deliveredEvents().stream()
        .filter(e -> e.aggregateType().equals(tenant))
        .count();
  }

  // ------------------------------------------------------------------ statement bounds

  @Test
  void a_lock_held_past_the_statement_timeout_fails_the_statement_instead_of_hanging()
      throws Exception {
    assumeTrue(flavor() != Flavor.H2, "H2 runs in-process with a lock timeout of its own");
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    AtomicReference<Connection> locker = new AtomicReference<>();
    Transport lockingAfterSend =
        m -> {
          try {
            // Someone locks the row while it is in flight: the acknowledgement must wait for it.
            Connection c = transaction();
            locker.set(c);
            try (PreparedStatement ps =
                c.prepareStatement("SELECT seq FROM outbox_event WHERE id = ? FOR UPDATE")) {
              sql().setUuid(ps, 1, m.event().id());
              ps.executeQuery().close();
            }
          } catch (SQLException ex) {
            throw new IllegalStateException(ex);
          }
          return SendResult.delivered();
        };

    try (OutboxRelay relay =
        relay(lockingAfterSend, "bounded").statementTimeout(Duration.ofSeconds(1)).build()) {
      long start = System.nanoTime();
      assertThatThrownBy(relay::runOnce).isInstanceOf(OutboxStorageException.class);
      // A few tries of a one-second-bounded acknowledgement (a lock wait that ran out is not
      // retried like a deadlock, though Connector/J reports MySQL's as a serialization failure).
      // Unbounded, it would wait for the lock for as long as it is held.
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .as("time until the acknowledgement gave up")
          .isLessThan(Duration.ofSeconds(40));
    } finally {
      Connection c = locker.get();
      if (c != null) {
        c.rollback();
        c.close();
      }
    }
    assertThat(row(e.id()))
        .as("not confirmed in the table: its lease brings it back")
        .containsEntry("status", "IN_FLIGHT");
  }

  @Test
  void the_relays_transactions_leave_a_pooled_connection_as_they_found_it() throws Exception {
    append(5, i -> event("a" + i, i));
    try (Connection c = ds.getConnection()) {
      String before = sessionLimits(c);
      int networkBefore = c.getNetworkTimeout();
      try (OutboxRelay relay =
          OutboxRelay.builder(StatementHook.singleConnection(c), new RecordingTransport())
              .name("one-connection")
              .statementTimeout(Duration.ofSeconds(3))
              .build()) {
        assertThat(relay.drain()).isEqualTo(5);
      }
      OutboxAdmin.builder(StatementHook.singleConnection(c)).build().countByStatus();
      assertThat(sessionLimits(c)).isEqualTo(before);
      assertThat(c.getNetworkTimeout()).isEqualTo(networkBefore);
      assertThat(c.getAutoCommit()).isTrue();
    }
  }

  /** The session's time limits as the server reports them, outside any transaction. */
  private String sessionLimits(Connection c) throws SQLException {
    String query;
    switch (flavor()) {
      case POSTGRES:
        query =
            "SELECT current_setting('statement_timeout') || ',' || current_setting('lock_timeout')"
                + " || ',' || current_setting('idle_in_transaction_session_timeout')";
        break;
      case MARIADB:
        query =
            "SELECT CONCAT(@@SESSION.wait_timeout, ',', @@SESSION.innodb_lock_wait_timeout, ',',"
                + " @@SESSION.max_statement_time)";
        break;
      case MYSQL:
        query =
            "SELECT CONCAT(@@SESSION.wait_timeout, ',', @@SESSION.innodb_lock_wait_timeout, ',',"
                + " @@SESSION.max_execution_time)";
        break;
      default:
        return "";
    }
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }

  // ---------------------------------------------------------------------------- helpers

  private static List<Thread> sendThreads(String relayName) {
    List<Thread> found = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("outboxkit-" + relayName + "-send")) {
        found.add(t);
      }
    }
    return found;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
