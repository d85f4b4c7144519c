package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.testing.RecordingTransport;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Events that business processes steer, on every database: cancelled in the caller's transaction or
 * by an operator, superseded by a later event of the same key, never sent once withdrawn, and never
 * withdrawn once a relay holds them.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class LifecycleContractTest extends RelayDatabaseTest {

  private static OutboxEvent keyed(String aggregateId, int n, String key) {
    return OutboxEvent.builder("Customer", aggregateId, "ProfileChanged")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .supersedeKey(key)
        .build();
  }

  private static List<String> sentNumbers(RecordingTransport transport) {
    return transport.deliveredEvents().stream()
        .map(e -> e.aggregateId() + ":" + e.headers().get("n"))
        .collect(Collectors.toList());
  }

  private CancelOutcome cancel(UUID id) throws SQLException {
    try (Connection c = transaction()) {
      CancelOutcome outcome = Outbox.cancel(c, id);
      c.commit();
      return outcome;
    }
  }

  private String status(UUID id) throws SQLException {
    return (String) row(id).get("status");
  }

  /** What a race runs beside the relay. */
  @FunctionalInterface
  private interface Work {
    void run() throws Exception;
  }

  /**
   * Runs {@code work} on one thread while another claims with the relay round after round until the
   * work is done, then drains what is left.
   */
  private static void racingTheRelay(OutboxRelay relay, Work work) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      AtomicBoolean working = new AtomicBoolean(true);
      Future<?> claims =
          pool.submit(
              () -> {
                while (working.get()) {
                  relay.runOnce();
                }
                return null;
              });
      Future<?> done =
          pool.submit(
              () -> {
                try {
                  work.run();
                } finally {
                  working.set(false);
                }
                return null;
              });
      done.get(120, TimeUnit.SECONDS);
      claims.get(120, TimeUnit.SECONDS);
      relay.drain();
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Runs an appending transaction as an application on InnoDB must: again when the database chose
   * it as a deadlock victim (SQL state 40001; it was rolled back whole). On MySQL and MariaDB an
   * append with a supersede key locks the key's waiting events, and a relay claiming the same
   * aggregate at that moment can make InnoDB pick either transaction.
   */
  private static void appendRetryingDeadlocks(Work append) throws Exception {
    for (int attempt = 1; ; attempt++) {
      try {
        append.run();
        return;
      } catch (SQLException e) {
        if (attempt == 5 || !"40001".equals(e.getSQLState())) {
          throw e;
        }
      }
    }
  }

  private OutboxRelay orderedRelay(RecordingTransport transport) {
    return relay(transport, "lifecycle").ordered(true).build();
  }

  @Test
  void a_cancelled_event_is_never_sent_and_keeps_its_reason() throws Exception {
    List<OutboxEvent> events = append(3, i -> event("a" + i, i));
    UUID withdrawn = events.get(1).id();

    assertThat(cancel(withdrawn)).isEqualTo(CancelOutcome.CANCELLED);
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "lifecycle").build()) {
      relay.drain();
    }

    assertThat(transport.deliveredEvents()).containsExactly(events.get(0), events.get(2));
    assertThat(row(withdrawn))
        .containsEntry("status", "CANCELLED")
        .containsEntry("last_error", OutboxWriter.DEFAULT_CANCEL_REASON);
  }

  @Test
  void a_cancel_rolls_back_with_the_callers_transaction() throws Exception {
    UUID id = append(1, i -> event("a", i)).get(0).id();
    try (Connection c = transaction()) {
      assertThat(Outbox.cancel(c, id)).isEqualTo(CancelOutcome.CANCELLED);
      c.rollback();
    }

    assertThat(status(id)).isEqualTo("PENDING");
  }

  @Test
  void a_cancel_says_why_it_changed_nothing() throws Exception {
    List<OutboxEvent> events = append(3, i -> event("a" + i, i));
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "lifecycle").batchSize(1).build()) {
      relay.runOnce();
    }
    assertThat(cancel(events.get(1).id())).isEqualTo(CancelOutcome.CANCELLED);

    assertThat(cancel(events.get(0).id())).isEqualTo(CancelOutcome.ALREADY_SENT);
    assertThat(cancel(events.get(1).id())).isEqualTo(CancelOutcome.ALREADY_FINISHED);
    assertThat(cancel(UUID.randomUUID())).isEqualTo(CancelOutcome.NOT_FOUND);
    assertThat(status(events.get(2).id())).isEqualTo("PENDING");
  }

  @Test
  void an_event_a_relay_holds_is_not_cancelled_and_is_delivered() throws Exception {
    OutboxEvent held = append(1, i -> event("a", i)).get(0);
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  sending.countDown();
                  await(answer);
                  return SendResult.delivered();
                });
    try (OutboxRelay relay = relay(transport, "lifecycle").build()) {
      relay.start();
      assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();

      assertThat(cancel(held.id())).isEqualTo(CancelOutcome.IN_FLIGHT);
      answer.countDown();
      awaitPublished(1, Duration.ofSeconds(30));
    }
    assertThat(transport.deliveredEvents()).containsExactly(held);
  }

  @Test
  void an_event_of_another_table_is_not_found() throws Exception {
    UUID id = append(1, i -> event("a", i)).get(0).id();
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, "other_outbox");
    }
    OutboxWriter other = Outbox.writer().table("other_outbox").build();
    try (Connection c = transaction()) {
      assertThat(other.cancel(c, id)).isEqualTo(CancelOutcome.NOT_FOUND);
      c.commit();
    }
    assertThat(status(id)).isEqualTo("PENDING");
  }

  @Test
  void in_ordered_mode_a_cancelled_event_does_not_hold_its_aggregate_back() throws Exception {
    List<OutboxEvent> events = append(4, i -> event("a", i));
    assertThat(cancel(events.get(1).id())).isEqualTo(CancelOutcome.CANCELLED);

    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = orderedRelay(transport)) {
      relay.drain();
    }
    assertThat(sentNumbers(transport)).containsExactly("a:0", "a:2", "a:3");
  }

  @Test
  void cancelling_a_dead_head_lets_its_aggregate_move_on() throws Exception {
    List<OutboxEvent> events = append(3, i -> event("a", i));
    UUID poison = events.get(0).id();
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison)
                        ? SendResult.reject("bad payload")
                        : SendResult.delivered());
    try (OutboxRelay relay = orderedRelay(transport)) {
      relay.drain();
      assertThat(status(poison)).isEqualTo("DEAD");
      assertThat(transport.deliveredEvents()).isEmpty();

      assertThat(admin().cancel(poison, "refund made by hand")).isEqualTo(CancelOutcome.CANCELLED);
      relay.drain();
    }
    assertThat(sentNumbers(transport)).containsExactly("a:1", "a:2");
    assertThat(row(poison)).containsEntry("last_error", "refund made by hand");
  }

  @Test
  void cancelling_an_aggregate_withdraws_its_waiting_events_and_counts_those_held()
      throws Exception {
    List<OutboxEvent> events = append(5, i -> event(i < 4 ? "a" : "b", i));
    try (Connection c = transaction()) {
      AggregateCancellation done = Outbox.cancelAggregate(c, "Order", "a");
      c.commit();
      assertThat(done.cancelled()).isEqualTo(4);
      assertThat(done.inFlight()).isZero();
      assertThat(done.isComplete()).isTrue();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "lifecycle").build()) {
      relay.drain();
    }
    assertThat(transport.deliveredEvents()).containsExactly(events.get(4));
    assertThat(admin().cancelAggregate("Order", "a", "again").cancelled()).isZero();
    assertThat(admin().countByStatus()).containsEntry(EventStatus.CANCELLED, 4L);
  }

  @Test
  void a_cancel_refuses_a_blank_reason_and_an_aggregate_without_a_name() {
    UUID id = UUID.randomUUID();
    assertThatThrownBy(() -> admin().cancel(id, " "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("reason must be given");
    assertThatThrownBy(() -> admin().cancel(id, "x".repeat(1001)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limit is 1000");
    assertThatThrownBy(() -> admin().cancelAggregate("Order", "", "r"))
        .isInstanceOf(InvalidEventException.class)
        .hasMessageContaining("aggregateId");
  }

  @Test
  void a_cancel_and_a_claim_racing_for_the_same_events_never_both_win() throws Exception {
    List<OutboxEvent> events = append(300, i -> event("a" + (i % 30), i));
    RecordingTransport transport = new RecordingTransport();
    Map<UUID, CancelOutcome> outcomes = new ConcurrentHashMap<>();
    try (OutboxRelay relay = relay(transport, "racer").batchSize(7).build()) {
      racingTheRelay(
          relay,
          () -> {
            for (OutboxEvent e : events) {
              outcomes.put(e.id(), cancel(e.id()));
            }
          });
    }

    Set<UUID> sent = new HashSet<>();
    transport.deliveredEvents().forEach(e -> sent.add(e.id()));
    for (OutboxEvent e : events) {
      CancelOutcome outcome = outcomes.get(e.id());
      if (outcome == CancelOutcome.CANCELLED) {
        assertThat(sent).as("cancelled event %s was sent", e.id()).doesNotContain(e.id());
        assertThat(status(e.id())).isEqualTo("CANCELLED");
      } else {
        assertThat(outcome).isIn(CancelOutcome.IN_FLIGHT, CancelOutcome.ALREADY_SENT);
        assertThat(sent).as("event %s, not cancelled, was sent", e.id()).contains(e.id());
      }
    }
    assertThat(transport.deliveredEvents()).doesNotHaveDuplicates();
  }

  @Test
  void an_event_with_a_supersede_key_withdraws_the_earlier_waiting_ones_of_its_aggregate()
      throws Exception {
    List<OutboxEvent> first = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      int i = n;
      first.addAll(append(1, x -> keyed("c42", i, "profile")));
    }
    OutboxEvent unrelated = append(1, i -> event("c42", 9)).get(0);
    OutboxEvent otherCustomer = append(1, i -> keyed("c7", 0, "profile")).get(0);

    assertThat(status(first.get(0).id())).isEqualTo("SUPERSEDED");
    assertThat((String) row(first.get(1).id()).get("last_error"))
        .isEqualTo("superseded by event " + first.get(2).id());
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "lifecycle").build()) {
      relay.drain();
    }
    assertThat(transport.deliveredEvents())
        .containsExactlyInAnyOrder(first.get(2), unrelated, otherCustomer);
  }

  @Test
  void events_superseded_within_one_batch_leave_only_the_last_of_each_key() throws Exception {
    List<OutboxEvent> batch =
        List.of(
            keyed("c1", 0, "profile"),
            keyed("c1", 1, "address"),
            keyed("c1", 2, "profile"),
            keyed("c1", 3, "profile"));
    try (Connection c = transaction()) {
      Outbox.appendAll(c, batch);
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = orderedRelay(transport)) {
      relay.drain();
    }
    assertThat(sentNumbers(transport)).containsExactly("c1:1", "c1:3");
    assertThat(admin().countByStatus()).containsEntry(EventStatus.SUPERSEDED, 2L);
  }

  @Test
  void an_older_event_a_relay_holds_is_still_delivered_before_the_one_that_supersedes_it()
      throws Exception {
    OutboxEvent older = append(1, i -> keyed("c1", 0, "profile")).get(0);
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch answer = new CountDownLatch(1);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m -> {
                  sending.countDown();
                  await(answer);
                  return SendResult.delivered();
                });
    OutboxEvent newer;
    try (OutboxRelay relay = orderedRelay(transport)) {
      relay.start();
      assertThat(sending.await(30, TimeUnit.SECONDS)).isTrue();
      newer = append(1, i -> keyed("c1", 1, "profile")).get(0);
      answer.countDown();
      awaitPublished(2, Duration.ofSeconds(30));
    }
    assertThat(transport.deliveredEvents()).containsExactly(older, newer);
  }

  @Test
  void superseding_does_not_jump_a_dead_head_of_another_key_but_withdraws_one_of_its_own()
      throws Exception {
    OutboxEvent poison = append(1, i -> keyed("c1", 0, "address")).get(0);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    m.event().id().equals(poison.id())
                        ? SendResult.reject("bad address")
                        : SendResult.delivered());
    try (OutboxRelay relay = orderedRelay(transport)) {
      relay.drain();
      assertThat(status(poison.id())).isEqualTo("DEAD");
      OutboxEvent stale = append(1, i -> keyed("c1", 1, "profile")).get(0);
      append(1, i -> keyed("c1", 2, "profile"));
      relay.drain();
      assertThat(status(stale.id())).isEqualTo("SUPERSEDED");
      assertThat(transport.deliveredEvents()).as("held behind the DEAD head").isEmpty();

      append(1, i -> keyed("c1", 3, "address"));
      relay.drain();
    }
    assertThat(status(poison.id())).isEqualTo("SUPERSEDED");
    assertThat(sentNumbers(transport)).containsExactly("c1:2", "c1:3");
  }

  @Test
  void appends_racing_a_relay_deliver_each_key_in_order_and_never_a_superseded_event()
      throws Exception {
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "racer").ordered(true).batchSize(5).build()) {
      racingTheRelay(
          relay,
          () -> {
            for (int n = 0; n < 200; n++) {
              int i = n;
              appendRetryingDeadlocks(() -> append(1, x -> keyed("c" + (i % 4), i, "profile")));
            }
          });
    }

    List<OutboxEvent> sent = transport.deliveredEvents();
    assertThat(sent).doesNotHaveDuplicates();
    for (OutboxEvent e : sent) {
      assertThat(status(e.id()))
          .as("a sent event is PUBLISHED, never SUPERSEDED")
          .isEqualTo("PUBLISHED");
    }
    assertThat(countStatus(EventStatus.PENDING) + countStatus(EventStatus.IN_FLIGHT)).isZero();
    for (int c = 0; c < 4; c++) {
      String customer = "c" + c;
      List<Integer> numbers =
          sent.stream()
              .filter(e -> e.aggregateId().equals(customer))
              .map(e -> Integer.valueOf(e.headers().get("n")))
              .collect(Collectors.toList());
      assertThat(numbers).as("%s in append order", customer).isSorted();
      assertThat(numbers).as("%s's newest delivered last", customer).endsWith(196 + c);
    }
  }

  @Test
  void finished_withdrawn_events_are_purged_like_published_ones() throws Exception {
    List<OutboxEvent> events = append(3, i -> keyed("c1", i, "profile"));
    cancel(events.get(2).id());

    assertThat(admin().purgeFinished(Duration.ZERO)).isEqualTo(3);
    assertThat(rows()).isZero();
  }

  @Test
  void versions_are_stored_and_must_grow_within_one_append() throws Exception {
    OutboxEvent v1 =
        OutboxEvent.builder("Order", "a", "Placed").payload("{}").aggregateVersion(1).build();
    OutboxEvent v2 =
        OutboxEvent.builder("Order", "a", "Paid").payload("{}").aggregateVersion(2).build();
    OutboxEvent other =
        OutboxEvent.builder("Order", "b", "Placed").payload("{}").aggregateVersion(1).build();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> Outbox.appendAll(c, List.of(v2, other, v1)))
          .isInstanceOf(InvalidEventException.class)
          .hasMessageContaining("aggregateVersion of event " + v1.id() + " is 1, not above the 2");
      Outbox.appendAll(c, List.of(v1, other, v2));
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay = relay(transport, "lifecycle").build()) {
      relay.drain();
    }
    assertThat(transport.deliveredEvents()).containsExactly(v1, other, v2);
    assertThat(transport.deliveredEvents().get(2).aggregateVersion()).hasValue(2);
  }

  @Test
  void a_table_of_an_earlier_version_takes_the_statements_the_start_check_names() throws Exception {
    execute("DROP TABLE IF EXISTS old_lifecycle");
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, "old_lifecycle");
    }
    // As the previous version made it: no lifecycle columns and a claim index in seq order alone;
    // a status CHECK (where the dialect's DDL has one) without the withdrawn states.
    boolean mysqlFamily = dialect == Dialect.MYSQL || dialect == Dialect.MARIADB;
    execute("DROP INDEX old_lifecycle_claim_idx" + (mysqlFamily ? " ON old_lifecycle" : ""));
    execute("ALTER TABLE old_lifecycle DROP COLUMN priority");
    if (dialect == Dialect.POSTGRESQL) {
      execute(
          "CREATE INDEX old_lifecycle_pending_idx ON old_lifecycle (seq) WHERE status = 'PENDING'");
    }
    execute("ALTER TABLE old_lifecycle DROP COLUMN aggregate_version");
    execute("ALTER TABLE old_lifecycle DROP COLUMN supersede_key");
    execute("ALTER TABLE old_lifecycle DROP COLUMN uncertain_sends");
    boolean checked =
        OutboxSchema.ddl(dialect, "old_lifecycle").contains("old_lifecycle_status_check");
    if (checked) {
      execute("ALTER TABLE old_lifecycle DROP CONSTRAINT old_lifecycle_status_check");
      execute(
          "ALTER TABLE old_lifecycle ADD CONSTRAINT old_lifecycle_status_check CHECK (status IN"
              + " ('PENDING', 'IN_FLIGHT', 'PUBLISHED', 'DEAD', 'EXPIRED'))");
    }
    OutboxRelay old = relay(new RecordingTransport(), "old").table("old_lifecycle").build();
    OutboxSchemaException refused;
    try {
      refused = catchThrowableOfType(OutboxSchemaException.class, old::start);
    } finally {
      old.close();
    }
    assertThat(refused.missingColumns())
        .containsExactly("aggregate_version", "supersede_key", "uncertain_sends", "priority");
    List<String> alters = new ArrayList<>();
    Matcher m =
        Pattern.compile("(ALTER TABLE|CREATE INDEX|DROP INDEX)[^;]* old_lifecycle[^;]*")
            .matcher(refused.getMessage());
    while (m.find()) {
      alters.add(m.group());
    }
    // Four columns, the claim index (and on PostgreSQL the drop of the one it replaces), the
    // status CHECK's two.
    int indexes = dialect == Dialect.POSTGRESQL ? 2 : 1;
    assertThat(alters).hasSize(4 + indexes + (checked ? 2 : 0));
    for (String alter : alters) { // as an operator runs them
      execute(alter);
    }
    if (dialect == Dialect.POSTGRESQL) {
      assertThat(
              count("SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'old_lifecycle_claim_idx'"))
          .isEqualTo(1);
      assertThat(
              count(
                  "SELECT COUNT(*) FROM pg_indexes WHERE indexname = 'old_lifecycle_pending_idx'"))
          .isZero();
    }

    OutboxWriter writer = OutboxWriter.builder().table("old_lifecycle").build();
    OutboxEvent cancelled = event("a", 1);
    OutboxEvent newest = keyed("c", 3, "profile");
    OutboxEvent urgent =
        OutboxEvent.builder("Customer", "d", "PasswordReset").payload("{}").priority(5).build();
    try (Connection c = transaction()) {
      writer.append(c, cancelled);
      writer.append(c, keyed("c", 2, "profile"));
      writer.append(c, newest);
      assertThat(writer.cancel(c, cancelled.id())).isEqualTo(CancelOutcome.CANCELLED);
      writer.append(c, urgent);
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay mended =
        relay(transport, "mended").table("old_lifecycle").batchSize(1).build()) {
      mended.drain();
    }
    assertThat(transport.deliveredEvents()).containsExactly(urgent, newest);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(60, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never answered");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
