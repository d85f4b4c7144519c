package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.internal.EngineAccess;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.MutableClock;
import dev.outboxkit.testkit.StatementHook;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The relay protocol (docs/ARCHITECTURE.md) and the README's guarantees, on every database. */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class RelayContractTest extends RelayDatabaseTest {
  /**
   * Events per aggregate in the ordered-mode stress test (50 aggregates, three relays, random
   * retries). A quarter of the load on MySQL: without PostgreSQL's loose index scan the ordered
   * claim reads every PENDING row to find the aggregates' heads, and the embedded MySQL 8.0.15 took
   * 6 minutes for the full 10,000 events (its limit); 2,500 events still interleave 50 aggregates
   * across three relays with retries, which is what the test is about. MariaDB runs the full load.
   */
  private int orderedEventsPerAggregate() {
    return flavor() == Flavor.MYSQL ? 50 : 200;
  }

  // ---------------------------------------------------------------- at-least-once, no duplicates

  @Test
  void an_event_committed_after_later_ones_were_published_is_published_too() throws Exception {
    RecordingTransport transport = new RecordingTransport();
    OutboxEvent first = event("late", 0);
    long after = 0;
    try (Connection late = transaction();
        OutboxRelay relay = relay(transport, "late").ordered(false).build()) {
      Outbox.append(late, first); // takes the lowest seq, commits last
      relay.start();
      // Later events commit and are published for 2.5 s: long enough for a claim floor (walked
      // every second on PostgreSQL) to pass the uncommitted event's seq.
      long until = System.nanoTime() + Duration.ofMillis(2500).toNanos();
      while (System.nanoTime() - until < 0) {
        int n = (int) ++after;
        append(1, i -> event("after-" + n, n));
        awaitPublished(after, Duration.ofSeconds(30));
      }
      late.commit();
      awaitPublished(after + 1, Duration.ofSeconds(30));
    }
    assertThat(transport.deliveredEvents()).hasSize((int) after + 1).contains(first);
  }

  @Test
  void four_relays_deliver_twenty_thousand_events_exactly_once() throws Exception {
    List<OutboxEvent> events = append(20_000, i -> event("a" + (i % 500), i));
    RecordingTransport transport = new RecordingTransport();
    List<OutboxRelay> relays = new ArrayList<>();
    try {
      for (int r = 0; r < 4; r++) {
        OutboxRelay relay = relay(transport, "r" + r).ordered(false).build();
        relays.add(relay);
        relay.start();
      }
      awaitPublished(events.size(), Duration.ofMinutes(2));
    } finally {
      relays.forEach(OutboxRelay::close);
    }

    List<OutboxEvent> delivered = transport.deliveredEvents();
    assertThat(delivered).hasSize(events.size());
    assertThat(new HashSet<>(delivered)).containsExactlyInAnyOrderElementsOf(events);
    assertThat(admin().countByStatus())
        .containsEntry(EventStatus.PUBLISHED, 20_000L)
        .containsEntry(EventStatus.PENDING, 0L)
        .containsEntry(EventStatus.IN_FLIGHT, 0L);
  }

  @Test
  void random_retries_still_deliver_everything_without_duplicates() throws Exception {
    List<OutboxEvent> events = append(20_000, i -> event("a" + (i % 500), i));
    Random random = new Random(7);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  synchronized (random) {
                    return random.nextInt(10) == 0
                        ? SendResult.retry("flaky broker #" + random.nextInt(1000), null)
                        : SendResult.delivered();
                  }
                });
    List<OutboxRelay> relays = new ArrayList<>();
    try {
      for (int r = 0; r < 4; r++) {
        OutboxRelay relay = relay(transport, "r" + r).ordered(false).maxAttempts(50).build();
        relays.add(relay);
        relay.start();
      }
      awaitPublished(events.size(), Duration.ofMinutes(2));
    } finally {
      relays.forEach(OutboxRelay::close);
    }

    // No ack was lost here, so no event may have been delivered twice.
    assertThat(transport.deliveredEvents()).hasSize(events.size()).doesNotHaveDuplicates();
    assertThat(transport.attempts().size()).isGreaterThan(events.size());
    assertThat(countStatus(EventStatus.DEAD)).isZero();
  }

  // --------------------------------------------------------------------------- ordered mode

  @Test
  void ordered_mode_keeps_each_aggregates_append_order_across_relays_and_retries()
      throws Exception {
    int aggregates = 50;
    int perAggregate = orderedEventsPerAggregate();
    append(aggregates * perAggregate, i -> event("agg-" + (i % aggregates), i / aggregates));
    Random random = new Random(11);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  synchronized (random) {
                    return random.nextInt(10) == 0
                        ? SendResult.retry("flaky " + random.nextInt(), null)
                        : SendResult.delivered();
                  }
                });
    List<OutboxRelay> relays = new ArrayList<>();
    try {
      for (int r = 0; r < 3; r++) {
        OutboxRelay relay = relay(transport, "o" + r).maxAttempts(50).build();
        relays.add(relay);
        relay.start();
      }
      awaitPublished((long) aggregates * perAggregate, Duration.ofMinutes(6));
    } finally {
      relays.forEach(OutboxRelay::close);
    }

    Map<String, List<Integer>> sendOrder = new HashMap<>();
    for (RecordingTransport.Attempt a : transport.attempts()) {
      OutboxEvent e = a.message().event();
      sendOrder
          .computeIfAbsent(e.aggregateId(), k -> new ArrayList<>())
          .add(Integer.parseInt(e.headers().get("n")));
    }
    assertThat(sendOrder).hasSize(aggregates);
    sendOrder.forEach(
        (aggregate, ns) -> {
          // Every attempt, failed or not, follows append order: a retried event is resent before
          // its successors are ever tried.
          for (int i = 1; i < ns.size(); i++) {
            assertThat(ns.get(i))
                .as("attempt %d of %s", i, aggregate)
                .isGreaterThanOrEqualTo(ns.get(i - 1));
          }
          assertThat(new HashSet<>(ns)).hasSize(perAggregate);
        });
  }

  @Test
  void ordered_mode_claims_runs_and_sends_them_in_waves_to_a_transport_without_order()
      throws Exception {
    append(10, i -> event(i < 5 ? "x" : "y", i));
    BatchRecorder transport = new BatchRecorder(false, m -> SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "waves").build()) {
      assertThat(relay.runOnce()).isEqualTo(10);
    }
    assertThat(transport.batches())
        .containsExactly(List.of(0, 5), List.of(1, 6), List.of(2, 7), List.of(3, 8), List.of(4, 9));
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(10);
  }

  @Test
  void ordered_mode_sends_a_run_in_one_batch_to_a_transport_that_keeps_order() throws Exception {
    append(10, i -> event(i < 5 ? "x" : "y", i));
    BatchRecorder transport = new BatchRecorder(true, m -> SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "runs").build()) {
      assertThat(relay.runOnce()).isEqualTo(10);
    }
    assertThat(transport.batches()).containsExactly(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
  }

  @Test
  void a_run_ends_before_an_event_that_is_not_due() throws Exception {
    append(
        3,
        i ->
            OutboxEvent.builder("Order", "x", "OrderPlaced")
                .payload("{}")
                .header("n", Integer.toString(i))
                .delay(i == 1 ? Duration.ofHours(1) : Duration.ZERO)
                .build());
    BatchRecorder transport = new BatchRecorder(true, m -> SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "not-due").build()) {
      assertThat(relay.runOnce()).isEqualTo(1);
      assertThat(relay.runOnce()).as("the delayed event blocks the one after it").isZero();
    }
    assertThat(transport.batches()).containsExactly(List.of(0));
  }

  private static OutboxEvent prioritised(String aggregateId, int priority) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced")
        .payload("{}")
        .priority(priority)
        .build();
  }

  private static List<String> aggregateIds(RecordingTransport transport) {
    return transport.deliveredEvents().stream()
        .map(OutboxEvent::aggregateId)
        .collect(Collectors.toList());
  }

  @Test
  void due_events_of_higher_priority_are_claimed_first_and_equal_ones_in_append_order()
      throws Exception {
    try (Connection c = transaction()) {
      Outbox.appendAll(
          c,
          List.of(
              prioritised("a0", 0),
              prioritised("b0", -3),
              prioritised("c0", 7),
              prioritised("a1", 0),
              OutboxEvent.builder("Order", "later", "OrderPlaced")
                  .payload("{}")
                  .priority(9)
                  .delay(Duration.ofHours(1))
                  .build(),
              prioritised("b1", -3),
              prioritised("c1", 7),
              prioritised("a2", 0)));
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "priority").ordered(false).batchSize(1).build()) {
      while (relay.runOnce() > 0) {
        // one event per round: the claim order is the delivery order
      }
    }

    // The event not due yet holds nothing back, whatever its priority.
    assertThat(aggregateIds(transport)).containsExactly("c0", "c1", "a0", "a1", "a2", "b0", "b1");
    assertThat(transport.deliveredEvents().get(0).priority()).isEqualTo(7);
  }

  @Test
  void in_ordered_mode_priority_chooses_among_heads_but_never_overtakes_an_aggregate()
      throws Exception {
    try (Connection c = transaction()) {
      Outbox.appendAll(
          c,
          List.of(
              prioritised("A", 0), prioritised("A", 9), prioritised("B", 5), prioritised("C", 0)));
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "priority").ordered(true).batchSize(1).build()) {
      while (relay.runOnce() > 0) {
        // one event per round
      }
    }

    // B's head first; A's urgent second event waits for A's first, then goes before C's.
    assertThat(transport.deliveredEvents())
        .extracting(e -> e.aggregateId() + e.priority())
        .containsExactly("B5", "A0", "A9", "C0");
  }

  @Test
  void runs_share_a_batch_between_aggregates_each_taking_a_prefix() throws Exception {
    append(60, i -> event("agg" + (i % 3), i / 3));
    BatchRecorder transport = new BatchRecorder(true, m -> SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "shares").batchSize(10).build()) {
      assertThat(relay.runOnce()).isEqualTo(10);
    }
    Map<String, List<Integer>> perAggregate = new HashMap<>();
    for (OutboxEvent e : transport.delivered()) {
      perAggregate
          .computeIfAbsent(e.aggregateId(), k -> new ArrayList<>())
          .add(Integer.parseInt(e.headers().get("n")));
    }
    assertThat(perAggregate).hasSize(3);
    perAggregate.forEach(
        (aggregate, ns) -> {
          assertThat(ns).as(aggregate).hasSizeGreaterThanOrEqualTo(3);
          for (int i = 0; i < ns.size(); i++) {
            assertThat(ns.get(i)).as("%s is a prefix of its aggregate", aggregate).isEqualTo(i);
          }
        });
  }

  /**
   * A failure in the middle of a run, through a transport that keeps order within a batch (it holds
   * back the aggregate's later events itself, as Kafka and JMS do) and one that does not (the relay
   * sends waves): first deliveries stay in append order, nothing innocent is charged, and a DEAD
   * event holds back exactly its aggregate.
   */
  @ParameterizedTest(name = "keeps order: {0}, failure: {1}")
  @CsvSource({
    "true, retry",
    "true, reject",
    "true, unavailable",
    "true, destination down",
    "false, retry",
    "false, reject",
    "false, unavailable",
    "false, destination down"
  })
  void order_holds_when_an_event_fails_mid_run(boolean keepsOrder, String failure)
      throws Exception {
    List<OutboxEvent> events = append(18, i -> event("agg" + (i % 3), i / 3));
    UUID failing = events.get(3 * 2).id(); // agg0, n=2
    Set<UUID> failedOnce = ConcurrentHashMap.newKeySet();
    BatchRecorder transport =
        new BatchRecorder(
            keepsOrder,
            m -> {
              if (!m.event().id().equals(failing) || !failedOnce.add(failing)) {
                return SendResult.delivered();
              }
              switch (failure) {
                case "retry":
                  return SendResult.retry("flaky", null);
                case "reject":
                  return SendResult.reject("poison");
                case "unavailable":
                  return SendResult.unavailable("broker down");
                default:
                  return SendResult.unavailable("down", "queue agg0");
              }
            });
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (OutboxRelay relay = relay(transport, "mid-run").clock(clock).build()) {
      for (int i = 0; i < 50 && countStatus(EventStatus.PUBLISHED) < 18; i++) {
        relay.drain();
        makeRetriesDue();
        clock.advance(Duration.ofMinutes(10)); // past any pause of the outage breaker
        if (failure.equals("reject") && countStatus(EventStatus.DEAD) == 1) {
          assertThat(countStatus(EventStatus.PUBLISHED))
              .as("the DEAD event holds back exactly its aggregate's later events")
              .isEqualTo(18 - 4);
          assertThat(admin().replay(failing)).isTrue();
        }
      }
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(18);
    Map<String, List<Integer>> firstDeliveries = new HashMap<>();
    Set<UUID> seen = new HashSet<>();
    for (OutboxEvent e : transport.delivered()) {
      if (seen.add(e.id())) {
        firstDeliveries
            .computeIfAbsent(e.aggregateId(), k -> new ArrayList<>())
            .add(Integer.parseInt(e.headers().get("n")));
      }
    }
    firstDeliveries.forEach(
        (aggregate, ns) ->
            assertThat(ns).as("first deliveries of %s", aggregate).isSorted().hasSize(6));
    for (OutboxEvent e : events) {
      if (!e.id().equals(failing)) {
        assertThat(row(e.id()).get("attempts"))
            .as("attempts of innocent %s/%s", e.aggregateId(), e.headers().get("n"))
            .isEqualTo(0);
      }
    }
  }

  /** The hold note is how an operator's view knows a destination is down, and since when. */
  @Test
  void events_held_for_a_destination_down_show_since_when_to_the_admin() throws Exception {
    List<OutboxEvent> events =
        append(
            3,
            i ->
                OutboxEvent.builder("Order", "h" + i, "OrderPlaced")
                    .destination(i < 2 ? "crm" : "billing")
                    .header("n", "0") // BatchRecorder reads it
                    .payload("{}")
                    .build());
    BatchRecorder transport =
        new BatchRecorder(
            false,
            m ->
                m.event().destination().orElse("").equals("crm")
                    ? SendResult.unavailable("HTTP 503", "crm")
                    : SendResult.delivered());
    Instant start = Instant.parse("2026-01-01T00:00:00Z");
    try (OutboxRelay relay = relay(transport, "held").clock(new MutableClock(start)).build()) {
      relay.drain();
    }
    List<BacklogGroup> backlog = admin().backlog(100, 10);
    assertThat(backlog).hasSize(1);
    assertThat(backlog.get(0).destination()).contains("crm");
    assertThat(backlog.get(0).events()).isEqualTo(2);
    assertThat(backlog.get(0).held()).isEqualTo(2);
    assertThat(backlog.get(0).heldSince()).contains(start);
    StoredEvent first = admin().find(events.get(0).id()).orElseThrow();
    assertThat(first.status()).isEqualTo("PENDING");
    assertThat(first.attempts()).as("a hold is not charged").isZero();
    assertThat(first.destinationDownSince()).contains(start);
    assertThat(first.lastError()).hasValueSatisfying(e -> assertThat(e).endsWith(": HTTP 503"));
    assertThat(admin().find(events.get(2).id()).orElseThrow().status()).isEqualTo("PUBLISHED");
  }

  /**
   * Records each batch's event numbers and answers per message; when it keeps order, it holds back
   * an aggregate's later events in the batch after one that was not delivered, as a Kafka or JMS
   * transport does.
   */
  static final class BatchRecorder implements Transport {
    private final boolean keepsOrder;
    private final java.util.function.Function<OutboxMessage, SendResult> responder;
    private final List<List<Integer>> batches = new ArrayList<>();
    private final List<OutboxEvent> delivered = new ArrayList<>();

    BatchRecorder(
        boolean keepsOrder, java.util.function.Function<OutboxMessage, SendResult> responder) {
      this.keepsOrder = keepsOrder;
      this.responder = responder;
    }

    @Override
    public SendResult send(OutboxMessage message) {
      return sendBatch(List.of(message)).get(0);
    }

    @Override
    public synchronized List<SendResult> sendBatch(List<OutboxMessage> batch) {
      List<Integer> numbers = new ArrayList<>();
      List<SendResult> results = new ArrayList<>();
      Set<String> failed = new HashSet<>();
      for (OutboxMessage m : batch) {
        numbers.add(Integer.parseInt(m.event().headers().get("n")));
        if (keepsOrder && failed.contains(m.event().aggregateId())) {
          results.add(SendResult.retry("not sent: an earlier event failed", null));
          continue;
        }
        SendResult r = responder.apply(m);
        if (r.isDelivered()) {
          delivered.add(m.event());
        } else {
          failed.add(m.event().aggregateId());
        }
        results.add(r);
      }
      batches.add(numbers);
      return results;
    }

    @Override
    public boolean keepsOrderWithinBatch() {
      return keepsOrder;
    }

    synchronized List<List<Integer>> batches() {
      return new ArrayList<>(batches);
    }

    synchronized List<OutboxEvent> delivered() {
      return new ArrayList<>(delivered);
    }
  }

  // ------------------------------------------------------------------------------- pipelining

  @Test
  void the_next_full_round_is_claimed_while_the_one_before_is_sent() throws Exception {
    append(30, i -> event("a" + i, i));
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger inFlightSeen = new AtomicInteger();
    Transport transport =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return SendResult.delivered();
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            if (calls.incrementAndGet() == 1) {
              // The first round waits here until the relay, meanwhile, claimed the second.
              long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
              long inFlight = 0;
              while (inFlight < 20 && System.nanoTime() < deadline) {
                inFlight = inFlight();
              }
              inFlightSeen.set((int) inFlight);
            }
            return java.util.Collections.nCopies(batch.size(), SendResult.delivered());
          }
        };
    try (OutboxRelay relay = relay(transport, "pipelined").batchSize(10).ordered(false).build()) {
      assertThat(relay.drain()).isEqualTo(30);
    }
    assertThat(inFlightSeen.get()).as("rows IN_FLIGHT while round 1 was sent").isEqualTo(20);
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(30);
  }

  @Test
  void a_head_behind_a_full_window_of_blocked_events_is_still_claimed() throws Exception {
    append(10, i -> event("stuck", i));
    OutboxEvent free = append(1, i -> event("free", 10)).get(0);
    // The stuck aggregate's first event is DEAD: its other nine are blocked, and the first five
    // due PENDING rows (a window of batchSize) hold no head.
    execute(
        "UPDATE outbox_event SET status = 'DEAD'"
            + " WHERE seq = (SELECT m FROM (SELECT MIN(seq) AS m FROM outbox_event) x)");
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "window").batchSize(5).ordered(true).build()) {
      assertThat(relay.drain()).isEqualTo(1);
    }
    assertThat(transport.deliveredEvents()).extracting(OutboxEvent::id).containsExactly(free.id());
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(9);
  }

  @Test
  void an_ordered_claim_of_heads_without_successors_searches_for_no_run() throws Exception {
    AtomicInteger runSearches = new AtomicInteger();
    // "AS due" is in the run search alone.
    DataSource watched = StatementHook.after(ds, "AS due", runSearches::incrementAndGet);
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder(watched, transport)
            .name("trickle")
            .ordered(true)
            .random(new Random(42))
            .build()) {
      append(10, i -> event("alone-" + i, i));
      assertThat(relay.drain()).isEqualTo(10);
      assertThat(runSearches.get()).as("run searches for ten lone heads").isZero();

      append(3, i -> event("three", i));
      assertThat(relay.drain()).isEqualTo(3);
      assertThat(runSearches.get()).as("run searches for a head with two successors").isOne();
    }
    assertThat(transport.deliveredEvents()).hasSize(13);
  }

  @Test
  void a_rounds_acknowledgement_and_the_claim_of_the_next_commit_in_one_transaction()
      throws Exception {
    append(20, i -> event("hot", i));
    RecordingTransport transport = new RecordingTransport();
    // At each claim statement: how many events the transport had confirmed, and how many of them
    // another connection sees PUBLISHED. A claim riding in the acknowledgement's transaction sees
    // the round before it confirmed but not yet committed PUBLISHED.
    List<long[]> atClaims = Collections.synchronizedList(new ArrayList<>());
    DataSource watched =
        StatementHook.after(
            ds,
            "SKIP LOCKED",
            () ->
                atClaims.add(
                    new long[] {
                      transport.deliveredEvents().size(), countStatus(EventStatus.PUBLISHED)
                    }));
    try (OutboxRelay relay =
        OutboxRelay.builder(watched, transport)
            .name("folded")
            .batchSize(5)
            .ordered(true)
            .random(new Random(42))
            .build()) {
      assertThat(relay.drain()).isEqualTo(20);
    }
    assertThat(atClaims)
        .as("claims that saw confirmed events not yet committed PUBLISHED")
        .anySatisfy(seen -> assertThat(seen[1]).isLessThan(seen[0]));
    assertThat(transport.deliveredEvents())
        .extracting(e -> new String(e.payload(), StandardCharsets.UTF_8))
        .as("one hot aggregate, in append order, each once")
        .containsExactlyElementsOf(
            IntStream.range(0, 20).mapToObj(i -> "{\"n\":" + i + "}").toList());
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(20);
  }

  @Test
  void a_round_claimed_ahead_goes_back_unsent_when_the_one_before_finds_an_outage()
      throws Exception {
    append(30, i -> event("a" + i, i));
    List<Integer> calls = java.util.Collections.synchronizedList(new ArrayList<>());
    Transport down =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return SendResult.unavailable("broker down");
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            calls.add(batch.size());
            return java.util.Collections.nCopies(
                batch.size(), SendResult.unavailable("broker down"));
          }
        };
    try (OutboxRelay relay = relay(down, "outage-ahead").batchSize(10).ordered(false).build()) {
      relay.drain();
    }
    assertThat(calls).as("one round sent; the one claimed meanwhile never").containsExactly(10);
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(30);
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
  }

  @Test
  void close_hands_back_the_round_being_sent_and_the_one_claimed_ahead() throws Exception {
    List<OutboxEvent> events = append(30, i -> event("a" + i, i));
    CountDownLatch aheadClaimed = new CountDownLatch(1);
    Transport stuck =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return SendResult.delivered();
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            try {
              while (inFlight() < 20) {
                Thread.sleep(5);
              }
              aheadClaimed.countDown();
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return java.util.Collections.nCopies(
                batch.size(), SendResult.unavailable("interrupted"));
          }
        };
    OutboxRelay relay =
        relay(stuck, "closing-pipeline")
            .batchSize(10)
            .ordered(false)
            .shutdownTimeout(Duration.ofMillis(300))
            .build();
    relay.start();
    assertThat(aheadClaimed.await(10, TimeUnit.SECONDS)).isTrue();
    relay.close();

    assertThat(countStatus(EventStatus.IN_FLIGHT)).isZero();
    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(30);
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
    RecordingTransport after = new RecordingTransport();
    try (OutboxRelay next = relay(after, "next").build()) {
      assertThat(next.drain()).as("no lease to wait out").isEqualTo(30);
    }
    assertThat(after.deliveredEvents()).containsExactlyInAnyOrderElementsOf(events);
  }

  private long inFlight() {
    try {
      return count("SELECT COUNT(*) FROM outbox_event WHERE status = 'IN_FLIGHT'");
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  // ------------------------------------------------------------------------ leases and fencing

  @Test
  void every_claim_holds_its_rows_for_the_lease_it_asked_for_by_the_database_clock()
      throws Exception {
    // Ordered: heads, and a run after aggregate a's head (a claim of its own on PostgreSQL).
    append(3, i -> event("a", i));
    append(2, i -> event("single-" + i, i));
    assertThat(EngineAccess.claim(ds, "ordered@1/1", 10, true, Duration.ofMinutes(1))).isEqualTo(5);
    append(2, i -> event("later-" + i, i));
    assertThat(EngineAccess.claim(ds, "unordered@1/1", 10, false, Duration.ofMinutes(1)))
        .isEqualTo(2);

    String remainingMillis =
        dialect == Dialect.POSTGRESQL
            ? "CAST(EXTRACT(EPOCH FROM (lease_until - now())) * 1000 AS BIGINT)"
            : dialect == Dialect.H2
                ? "DATEDIFF(MILLISECOND, CURRENT_TIMESTAMP, lease_until)"
                : "TIMESTAMPDIFF(MICROSECOND, UTC_TIMESTAMP(6), lease_until) DIV 1000";
    String inFlight = " FROM outbox_event WHERE status = 'IN_FLIGHT'";
    assertThat(count("SELECT COUNT(*)" + inFlight)).isEqualTo(7);
    assertThat(count("SELECT MIN(" + remainingMillis + ")" + inFlight))
        .as("no claim holds its rows for less than the lease")
        .isGreaterThan(45_000);
    assertThat(count("SELECT MAX(" + remainingMillis + ")" + inFlight))
        .as("nor for longer")
        .isLessThanOrEqualTo(60_000);
  }

  @Test
  void a_dead_relays_events_are_delivered_by_another_after_the_lease() throws Exception {
    List<OutboxEvent> events = append(5, i -> event("a" + i, i));
    assertThat(EngineAccess.claim(ds, "crashed@1/1", 10, false, Duration.ofMinutes(1)))
        .isEqualTo(5);

    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay survivor = relay(transport, "survivor").build()) {
      assertThat(survivor.drain()).as("leases still valid").isZero();
      expireLeases();
      try (OutboxRelay restarted = relay(transport, "survivor").build()) {
        assertThat(restarted.drain()).isEqualTo(5);
      }
    }
    assertThat(transport.deliveredEvents()).containsExactlyInAnyOrderElementsOf(events);
    assertThat(row(events.get(0).id()))
        .containsEntry("status", "PUBLISHED")
        .as("the lost lease is counted apart, not as an attempt")
        .containsEntry("attempts", 0)
        .containsEntry("lease_losses", 1);
  }

  @Test
  void a_stalled_relay_whose_lease_was_taken_over_cannot_overwrite_the_new_owner()
      throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    Transport stalling =
        m -> {
          sending.countDown();
          try {
            resume.await();
          } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
          }
          return SendResult.delivered();
        };
    AtomicInteger leaseLost = new AtomicInteger();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void leaseLost(int events) {
            leaseLost.addAndGet(events);
          }
        };
    RecordingTransport second =
        new RecordingTransport().respondWith(m -> SendResult.reject("new owner rejects"));
    try (OutboxRelay stale = relay(stalling, "stale").listener(listener).build();
        OutboxRelay fresh = relay(second, "fresh").build()) {
      Thread t = new Thread(stale::runOnce);
      t.start();
      assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();
      expireLeases();
      assertThat(fresh.runOnce()).isEqualTo(1); // takes over and quarantines it
      resume.countDown();
      t.join(10_000);
    }
    assertThat(leaseLost.get()).isEqualTo(1);
    assertThat(row(e.id()))
        .containsEntry("status", "DEAD")
        .containsEntry("last_error", "new owner rejects");
  }

  // ------------------------------------------------------------------ outages are not poison

  @Test
  void a_five_minute_outage_charges_no_attempt_and_kills_nothing() throws Exception {
    List<OutboxEvent> events = append(300, i -> event("a" + (i % 30), i));
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    Instant recovery = clock.instant().plus(Duration.ofMinutes(5));
    AtomicInteger calls = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  calls.incrementAndGet();
                  return clock.instant().isBefore(recovery)
                      ? SendResult.unavailable("broker down")
                      : SendResult.delivered();
                });
    try (OutboxRelay relay =
        relay(transport, "outage").clock(clock).maxAttempts(2).ordered(false).build()) {
      while (clock.instant().isBefore(recovery)) {
        relay.runOnce();
        clock.advance(Duration.ofSeconds(1));
      }
      assertThat(countStatus(EventStatus.PENDING)).isEqualTo(300);
      int duringOutage = calls.get();
      // One full batch, then single-event probes spaced by the growing pause (<= 30 s).
      assertThat(duringOutage).isBetween(100 + 5, 100 + 60);
      clock.advance(Duration.ofMinutes(1));
      relay.drain();
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(300);
    assertThat(countStatus(EventStatus.DEAD)).isZero();
    assertThat(transport.deliveredEvents()).containsExactlyInAnyOrderElementsOf(events);
    assertThat(count("SELECT MAX(attempts) FROM outbox_event"))
        .as("no attempt charged: attempts count the events' own failures")
        .isZero();
  }

  @Test
  void an_event_that_alone_looks_like_an_outage_cannot_wedge_the_probes() throws Exception {
    // One event makes the transport report an outage whenever it is sent on its own (e.g. the
    // receiver answers 500 to that payload only, and the endpoint breaker opens). Probes are
    // single events, lowest seq first: if each probe picked it again, nothing would ever flow.
    List<OutboxEvent> events = append(10, i -> event("a" + i, i));
    UUID poison = events.get(0).id();
    MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison)
                        ? SendResult.unavailable("endpoint breaker open")
                        : SendResult.delivered());
    try (OutboxRelay relay =
        relay(transport, "wedge")
            .batchSize(1)
            .clock(clock)
            .retryBackoff(Duration.ofMinutes(1), Duration.ofMinutes(10))
            .build()) {
      for (int i = 0; i < 50 && countStatus(EventStatus.PUBLISHED) < 9; i++) {
        relay.runOnce();
        clock.advance(Duration.ofSeconds(31)); // past any outage pause
      }
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(9);
    assertThat(row(poison)).containsEntry("status", "PENDING").containsEntry("attempts", 0);
  }

  @Test
  void a_transport_failing_every_event_the_same_way_is_treated_as_an_outage() throws Exception {
    append(10, i -> event("a" + i, i));
    RecordingTransport transport =
        new RecordingTransport().respondWith(m -> SendResult.retry("Connection refused", null));
    try (OutboxRelay relay = relay(transport, "naive").maxAttempts(1).ordered(false).build()) {
      assertThat(relay.runOnce()).isEqualTo(10);
    }
    assertThat(countStatus(EventStatus.DEAD)).as("maxAttempts 1, yet nothing died").isZero();
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
  }

  @Test
  void a_hanging_transport_is_cut_off_by_the_send_timeout_and_retried_uncharged() throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    CountDownLatch never = new CountDownLatch(1);
    Transport hanging =
        m -> {
          try {
            never.await();
            return SendResult.delivered();
          } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return SendResult.retry("interrupted", null);
          }
        };
    try (OutboxRelay relay =
        relay(hanging, "hang")
            .sendTimeout(Duration.ofMillis(200))
            .leaseDuration(Duration.ofSeconds(30))
            .build()) {
      assertThat(relay.runOnce()).isEqualTo(1);
    }
    assertThat(row(e.id())).containsEntry("status", "PENDING").containsEntry("attempts", 0);
  }

  // ------------------------------------------------------------------------------ poison

  @Test
  void a_rejected_event_goes_dead_with_its_reason_and_the_rest_flow_unordered() throws Exception {
    List<OutboxEvent> events = append(20, i -> event("a" + (i % 2), i));
    UUID poison = events.get(4).id();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison)
                        ? SendResult.reject("schema invalid")
                        : SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "poison").ordered(false).build()) {
      relay.drain();
    }
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(19);
    assertThat(row(poison))
        .containsEntry("status", "DEAD")
        .containsEntry("last_error", "schema invalid");
    assertThat(admin().listDead(0, 10))
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.id()).isEqualTo(poison);
              assertThat(d.lastError()).isEqualTo("schema invalid");
              assertThat(d.attempts()).isEqualTo(1);
            });
  }

  @Test
  void in_ordered_mode_a_dead_event_holds_back_only_its_aggregate_until_replayed()
      throws Exception {
    List<OutboxEvent> events = append(10, i -> event(i % 2 == 0 ? "even" : "odd", i));
    UUID poison = events.get(2).id(); // "even", n=2
    Set<UUID> rejectOnce = ConcurrentHashMap.newKeySet();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison) && rejectOnce.add(poison)
                        ? SendResult.reject("bad")
                        : SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "ordered-poison").build()) {
      relay.drain();
      assertThat(transport.deliveredEvents())
          .extracting(e -> e.headers().get("n"))
          .containsExactlyInAnyOrder("0", "1", "3", "5", "7", "9");
      assertThat(countStatus(EventStatus.PENDING)).as("even 4, 6, 8 wait").isEqualTo(3);

      assertThat(admin().replay(poison)).isTrue();
      relay.drain();
    }
    assertThat(transport.deliveredEvents())
        .filteredOn(e -> e.aggregateId().equals("even"))
        .extracting(e -> e.headers().get("n"))
        .containsExactly("0", "2", "4", "6", "8");
    assertThat(countStatus(EventStatus.PUBLISHED)).isEqualTo(10);
  }

  @Test
  void an_event_failing_past_its_budget_goes_dead_naming_the_attempts() throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    RecordingTransport transport =
        new RecordingTransport().respondWith(m -> SendResult.retry("HTTP 500", null));
    try (OutboxRelay relay = relay(transport, "budget").maxAttempts(3).build()) {
      for (int i = 0; i < 3; i++) {
        assertThat(relay.runOnce()).isEqualTo(1);
        makeRetriesDue();
      }
      assertThat(relay.runOnce()).isZero();
    }
    assertThat(row(e.id()))
        .containsEntry("status", "DEAD")
        .containsEntry("attempts", 3)
        .containsEntry("last_error", "gave up after 3 attempts: HTTP 500");
    assertThat(transport.attempts())
        .extracting(a -> a.message().attempt())
        .containsExactly(1, 2, 3);
    assertThat(transport.attempts())
        .as("the same event, identical id and content, on every attempt")
        .extracting(a -> a.message().event())
        .containsOnly(e);
  }

  @Test
  void no_transaction_or_pooled_connection_is_held_while_the_transport_sends() throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch checked = new CountDownLatch(1);
    Transport observed =
        m -> {
          sending.countDown();
          try {
            checked.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
          }
          return SendResult.delivered();
        };
    HikariDataSource relayPool = db.newDataSource(4);
    try (OutboxRelay relay = OutboxRelay.builder(relayPool, observed).name("observed").build()) {
      Thread t = new Thread(relay::runOnce);
      t.start();
      assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();

      // The claim is committed (visible to others) and its row lock released: another session
      // can lock the row without waiting while the broker is being called.
      assertThat(row(e.id())).containsEntry("status", "IN_FLIGHT");
      try (Connection c = transaction();
          PreparedStatement ps =
              c.prepareStatement("SELECT seq FROM outbox_event WHERE id = ? FOR UPDATE NOWAIT")) {
        sql().setUuid(ps, 1, e.id());
        try (ResultSet rs = ps.executeQuery()) {
          assertThat(rs.next()).isTrue();
        }
        c.rollback();
      }
      assertThat(relayPool.getHikariPoolMXBean().getActiveConnections())
          .as("connections the relay holds during the send")
          .isZero();
      checked.countDown();
      t.join(10_000);
    } finally {
      relayPool.close();
    }
    assertThat(row(e.id())).containsEntry("status", "PUBLISHED");
  }

  @Test
  void an_unreadable_row_is_quarantined_and_does_not_block_the_batch() throws Exception {
    List<OutboxEvent> events = append(3, i -> event("a" + i, i));
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE outbox_event SET headers = ? WHERE id = ?")) {
      ps.setString(1, "{not json");
      sql().setUuid(ps, 2, events.get(1).id());
      ps.executeUpdate();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "unreadable").build()) {
      assertThat(relay.drain()).isEqualTo(3);
    }
    assertThat(transport.deliveredEvents()).containsExactlyInAnyOrder(events.get(0), events.get(2));
    assertThat((String) row(events.get(1).id()).get("last_error")).startsWith("unreadable row");
  }

  // --------------------------------------------------------------------------- retry timing

  @Test
  void a_retry_waits_by_the_database_clock_within_the_backoff_cap() throws Exception {
    OutboxEvent e = append(1, i -> event("a", i)).get(0);
    RecordingTransport transport =
        new RecordingTransport().respondWith(m -> SendResult.retry("busy", null));
    try (OutboxRelay relay =
        relay(transport, "wait").retryBackoff(Duration.ofHours(1), Duration.ofHours(2)).build()) {
      assertThat(relay.runOnce()).isEqualTo(1);
      assertThat(relay.runOnce()).as("not yet available").isZero();
    }
    String delaySeconds =
        dialect == Dialect.POSTGRESQL
            ? "SELECT EXTRACT(EPOCH FROM (available_at - now())) FROM outbox_event"
            : dialect == Dialect.H2
                ? "SELECT DATEDIFF(SECOND, CURRENT_TIMESTAMP, available_at) FROM outbox_event"
                : "SELECT TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(6), available_at) FROM outbox_event";
    assertThat(count(delaySeconds)).isBetween(0L, 3600L);
    assertThat(row(e.id())).containsEntry("status", "PENDING").containsEntry("last_error", "busy");
  }

  @Test
  void a_transport_asked_delay_is_honoured() throws Exception {
    append(1, i -> event("a", i));
    RecordingTransport transport =
        new RecordingTransport().respondWith(m -> SendResult.retry("429", Duration.ofMinutes(30)));
    try (OutboxRelay relay = relay(transport, "after").build()) {
      relay.runOnce();
    }
    String delayMinutes =
        dialect == Dialect.POSTGRESQL
            ? "SELECT ROUND(EXTRACT(EPOCH FROM (available_at - now())) / 60) FROM outbox_event"
            : dialect == Dialect.H2
                ? "SELECT ROUND(DATEDIFF(SECOND, CURRENT_TIMESTAMP, available_at) / 60.0) FROM outbox_event"
                : "SELECT ROUND(TIMESTAMPDIFF(SECOND, UTC_TIMESTAMP(6), available_at) / 60) FROM outbox_event";
    assertThat(count(delayMinutes)).isEqualTo(30);
  }

  // ----------------------------------------------------------------------- expiry, shutdown

  @Test
  void an_expired_event_is_marked_expired_and_never_sent() throws Exception {
    OutboxEvent stale =
        OutboxEvent.builder("Order", "a", "Reminder")
            .payload("{}")
            .expiresAt(Instant.now().minusSeconds(60))
            .build();
    OutboxEvent fresh =
        OutboxEvent.builder("Order", "a", "Reminder")
            .payload("{}")
            .expiresAt(Instant.now().plusSeconds(3600))
            .build();
    try (Connection c = transaction()) {
      Outbox.appendAll(c, List.of(stale, fresh));
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "expiry").build()) {
      relay.drain();
    }
    assertThat(transport.deliveredEvents()).containsExactly(fresh);
    assertThat(row(stale.id())).containsEntry("status", "EXPIRED");
  }

  @Test
  void close_hands_an_unfinished_batch_straight_back() throws Exception {
    List<OutboxEvent> events = append(5, i -> event("a" + i, i));
    CountDownLatch sending = new CountDownLatch(1);
    Transport stuck =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return SendResult.delivered();
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            sending.countDown();
            try {
              Thread.sleep(60_000);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("interrupted");
          }
        };
    OutboxRelay relay = relay(stuck, "closing").shutdownTimeout(Duration.ofMillis(300)).build();
    relay.start();
    assertThat(sending.await(10, TimeUnit.SECONDS)).isTrue();
    relay.close();

    assertThat(countStatus(EventStatus.PENDING)).isEqualTo(5);
    assertThat(count("SELECT MAX(attempts) FROM outbox_event")).isZero();
    RecordingTransport after = new RecordingTransport();
    try (OutboxRelay next = relay(after, "next").build()) {
      assertThat(next.drain()).as("no lease to wait out").isEqualTo(5);
    }
    assertThat(after.deliveredEvents()).containsExactlyInAnyOrderElementsOf(events);
  }

  @Test
  void a_started_relay_delivers_promptly_after_wake_up() throws Exception {
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        relay(transport, "wake").pollInterval(Duration.ofMinutes(10)).build()) {
      relay.start();
      Thread.sleep(100); // let it go idle on an empty table
      append(1, i -> event("a", i));
      relay.wakeUp();
      assertThat(transport.awaitDelivered(1, Duration.ofSeconds(10))).isTrue();
    }
  }

  @Test
  void drain_until_done_also_delivers_the_retries_as_they_come_due() throws Exception {
    List<OutboxEvent> events = append(10, i -> event("a" + i, i));
    Set<UUID> failedOnce = ConcurrentHashMap.newKeySet();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    failedOnce.add(m.event().id())
                        ? SendResult.retry("first try fails", Duration.ofMillis(200))
                        : SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "drain-wait").build()) {
      relay.drain();
      assertThat(countStatus(EventStatus.PENDING)).as("retries not due yet").isEqualTo(10);

      DrainReport report = relay.drainUntilDone(Duration.ofSeconds(10));
      assertThat(report.delivered()).as(report.toString()).isEqualTo(10);
      assertThat(report.stillPending()).isZero();
      assertThat(report.timedOut()).isFalse();
    }
    assertThat(transport.deliveredEvents()).containsExactlyInAnyOrderElementsOf(events);
    assertThat(countStatus(EventStatus.PENDING)).isZero();
  }

  @Test
  void drain_until_done_returns_at_once_when_only_events_behind_a_dead_one_are_left()
      throws Exception {
    // Aggregate a: a0 is rejected, a1 and a2 wait behind it; aggregate b flows.
    List<OutboxEvent> events = append(5, i -> event(i < 3 ? "a" : "b", i));
    UUID poison = events.get(0).id();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison)
                        ? SendResult.reject("HTTP 400: malformed")
                        : SendResult.delivered());
    Duration maxWait = Duration.ofMinutes(10);
    long start = System.nanoTime();
    DrainReport report;
    try (OutboxRelay relay = relay(transport, "drain-dead").ordered(true).build()) {
      report = relay.drainUntilDone(maxWait);
    }
    // Not a timing claim: a drain that waited for the held events would take the ten minutes.
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(maxWait);
    assertThat(report.delivered()).as(report.toString()).isEqualTo(2);
    assertThat(report.dead()).isEqualTo(1);
    assertThat(report.heldBehindDead()).isEqualTo(2);
    assertThat(report.stillPending()).isEqualTo(2);
    assertThat(report.handedBack())
        .as("a1, a2: claimed in a0's run, not sent after it failed")
        .isEqualTo(2);
    assertThat(report.timedOut()).isFalse();
  }

  @Test
  void drain_until_done_does_not_wait_for_events_due_after_max_wait_and_counts_hand_backs()
      throws Exception {
    try (Connection c = transaction()) {
      Outbox.append(
          c,
          OutboxEvent.builder("Order", "later", "Reminder")
              .payload("{}")
              .delay(Duration.ofHours(1))
              .build());
      c.commit();
    }
    append(3, i -> event("now" + i, i));
    AtomicInteger calls = new AtomicInteger();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    calls.incrementAndGet() <= 3
                        ? SendResult.unavailable("broker restarting")
                        : SendResult.delivered());
    DrainReport report;
    try (OutboxRelay relay =
        relay(transport, "drain-later")
            .outageBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
            .build()) {
      report = relay.drainUntilDone(Duration.ofMinutes(10));
    }
    assertThat(report.delivered()).as(report.toString()).isEqualTo(3);
    assertThat(report.handedBack()).as(report.toString()).isGreaterThanOrEqualTo(1);
    assertThat(report.stillPending()).as("the event due in an hour").isEqualTo(1);
    assertThat(report.heldBehindDead()).isZero();
    assertThat(report.timedOut()).isFalse();
  }

  @Test
  void delete_on_publish_leaves_no_row() throws Exception {
    append(7, i -> event("a" + i, i));
    try (OutboxRelay relay =
        relay(new RecordingTransport(), "delete").deleteOnPublish(true).build()) {
      assertThat(relay.drain()).isEqualTo(7);
    }
    assertThat(rows()).isZero();
  }

  // -------------------------------------------------------------------------------- admin

  @Test
  void admin_counts_ages_replays_discards_and_purges_only_finished_rows() throws Exception {
    List<OutboxEvent> events = append(6, i -> event("a" + i, i));
    Set<UUID> reject = Set.of(events.get(0).id(), events.get(1).id());
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    reject.contains(m.event().id())
                        ? SendResult.reject("no")
                        : SendResult.delivered());
    try (OutboxRelay relay = relay(transport, "admin").build()) {
      relay.drain();
    }
    append(2, i -> event("later" + i, i)); // PENDING
    EngineAccess.claim(ds, "someone@x/1", 1, false, Duration.ofMinutes(5)); // IN_FLIGHT

    OutboxAdmin admin = admin();
    assertThat(admin.countByStatus())
        .containsEntry(EventStatus.PUBLISHED, 4L)
        .containsEntry(EventStatus.DEAD, 2L)
        .containsEntry(EventStatus.PENDING, 1L)
        .containsEntry(EventStatus.IN_FLIGHT, 1L)
        .containsEntry(EventStatus.EXPIRED, 0L);
    assertThat(admin.oldestPendingAge())
        .hasValueSatisfying(age -> assertThat(age).isLessThan(Duration.ofMinutes(5)));

    assertThat(admin.purgeFinished(Duration.ZERO)).isEqualTo(4);
    assertThat(admin.countByStatus())
        .containsEntry(EventStatus.PUBLISHED, 0L)
        .containsEntry(EventStatus.DEAD, 2L)
        .containsEntry(EventStatus.PENDING, 1L)
        .containsEntry(EventStatus.IN_FLIGHT, 1L);

    List<DeadEvent> page1 = admin.listDead(0, 1);
    List<DeadEvent> page2 = admin.listDead(page1.get(0).seq(), 1);
    assertThat(page1).extracting(DeadEvent::id).containsExactly(events.get(0).id());
    assertThat(page2).extracting(DeadEvent::id).containsExactly(events.get(1).id());
    assertThat(admin.discard(events.get(0).id())).isTrue();
    assertThat(admin.discard(events.get(0).id())).isFalse();
    assertThat(admin.replayAllDead()).isEqualTo(1);
    assertThat(row(events.get(1).id()))
        .containsEntry("status", "PENDING")
        .containsEntry("attempts", 0);
    assertThat(admin.replay(events.get(1).id())).as("no longer DEAD").isFalse();
  }

  @Test
  void purge_keeps_rows_younger_than_the_retention() throws Exception {
    append(3, i -> event("a" + i, i));
    try (OutboxRelay relay = relay(new RecordingTransport(), "keep").build()) {
      relay.drain();
    }
    assertThat(OutboxAdmin.builder(ds).purgeBatchSize(1).build().purgeFinished(Duration.ofHours(1)))
        .isZero();
    assertThat(OutboxAdmin.builder(ds).purgeBatchSize(1).build().purgeFinished(Duration.ZERO))
        .isEqualTo(3);
  }

  // ------------------------------------------------------------------------ configuration

  @Test
  void contradictory_settings_are_refused_at_build_time() {
    RecordingTransport t = new RecordingTransport();
    assertThatThrownBy(
            () ->
                OutboxRelay.builder(ds, t)
                    .leaseDuration(Duration.ofSeconds(10))
                    .sendTimeout(Duration.ofSeconds(10))
                    .build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("sendTimeout (PT10S) must be shorter than leaseDuration (PT10S)");
    assertThatThrownBy(() -> OutboxRelay.builder(ds, t).batchSize(0))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("batchSize");
    assertThatThrownBy(() -> OutboxRelay.builder(ds, t).pollInterval(Duration.ZERO))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> OutboxRelay.builder(ds, t).name("bad name"))
        .isInstanceOf(OutboxConfigurationException.class);
    assertThatThrownBy(() -> OutboxRelay.builder(ds, t).table("x;y"))
        .isInstanceOf(OutboxConfigurationException.class);
  }
}
