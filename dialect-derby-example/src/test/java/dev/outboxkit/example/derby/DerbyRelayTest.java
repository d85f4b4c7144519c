package dev.outboxkit.example.derby;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.OutboxWriter;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.jdbc.dialect.DialectRegistry;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.apache.derby.jdbc.EmbeddedDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Several relays on one embedded Derby database, the way an application would run them: the dialect
 * under test is the one {@link DerbyDialect} builds from the public SPI. Derby has no SKIP LOCKED,
 * and its readers wait for writers, so relays meet each other's row locks; the relays must still
 * deliver every event exactly once, and in order per aggregate when ordered.
 */
class DerbyRelayTest {
  private static final String DATABASE = "memory:derby-relays";
  private static final String TABLE = "outbox_event";
  private static final SqlDialect DERBY = DerbyDialect.create();

  /** No pool: every borrow is a new embedded connection, and every close a real one. */
  private static EmbeddedDataSource dataSource;

  private final List<OutboxRelay> relays = new ArrayList<>();
  private final Contention contention = new Contention();

  @BeforeAll
  static void createDatabase() throws SQLException {
    dataSource = new EmbeddedDataSource();
    dataSource.setDatabaseName(DATABASE);
    dataSource.setCreateDatabase("create");
    try (Connection c = dataSource.getConnection()) {
      OutboxSchema.create(c, TABLE, DERBY);
    }
  }

  @AfterAll
  static void dropDatabase() {
    EmbeddedDataSource drop = new EmbeddedDataSource();
    drop.setDatabaseName(DATABASE);
    drop.setConnectionAttributes("drop=true");
    try {
      drop.getConnection().close();
      throw new IllegalStateException("Derby did not drop " + DATABASE);
    } catch (SQLException dropped) {
      // 08006: the database is gone, which is how Derby says a drop worked.
      assertThat(dropped.getSQLState()).isEqualTo("08006");
    }
  }

  @AfterEach
  void closeRelaysAndDeleteRows() throws SQLException {
    for (OutboxRelay relay : relays) {
      relay.close();
    }
    System.out.println(contention);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.executeUpdate("DELETE FROM " + TABLE);
    }
  }

  @Test
  void three_relays_claiming_at_once_deliver_every_event_exactly_once() throws SQLException {
    List<OutboxEvent> appended = append(3_000, 100);
    RecordingTransport transport = drainWithThreeRelays(appended, "unordered", false);

    assertThat(transport.deliveredEvents()).containsExactlyInAnyOrderElementsOf(appended);
    assertThat(admin().countByStatus())
        .containsEntry(EventStatus.PUBLISHED, (long) appended.size())
        .containsEntry(EventStatus.PENDING, 0L)
        .containsEntry(EventStatus.IN_FLIGHT, 0L);
    // Every relay took part, so the claims did meet each other.
    assertThat(contention.claimedByRelay)
        .hasSize(3)
        .allSatisfy((relay, claimed) -> assertThat(claimed.get()).as(relay).isPositive());
  }

  @Test
  void three_ordered_relays_keep_each_aggregates_append_order() throws SQLException {
    List<OutboxEvent> appended = append(1_000, 20);
    RecordingTransport transport = drainWithThreeRelays(appended, "ordered", true);

    assertThat(byAggregate(transport.deliveredEvents())).isEqualTo(byAggregate(appended));
  }

  @Test
  void components_built_without_a_dialect_detect_derby_through_the_service_loader()
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      assertThat(DialectRegistry.detect(c).name()).isEqualTo("Derby");
    }
    OutboxWriter detecting = Outbox.writer().table(TABLE).build();
    OutboxEvent event = event("detected", 0);
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      detecting.append(c, event);
      c.commit();
    }
    RecordingTransport transport = new RecordingTransport();
    OutboxRelay relay = OutboxRelay.builder(dataSource, transport).table(TABLE).build();
    relays.add(relay);

    assertThat(relay.runOnce()).isEqualTo(1);
    assertThat(transport.deliveredEvents()).containsExactly(event);
    assertThat(OutboxAdmin.builder(dataSource).table(TABLE).build().count(EventStatus.PUBLISHED))
        .isEqualTo(1);
  }

  private List<OutboxEvent> append(int count, int aggregates) throws SQLException {
    OutboxWriter writer = Outbox.writer().table(TABLE).dialect(DERBY).build();
    List<OutboxEvent> events = new ArrayList<>();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 0; i < count; i++) {
        OutboxEvent e = event("order-" + (i % aggregates), i);
        writer.append(c, e);
        events.add(e);
        if (i % 200 == 199) {
          c.commit();
        }
      }
      c.commit();
    }
    return events;
  }

  private static OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("Order", aggregateId, "OrderChanged")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .build();
  }

  /**
   * Starts three relays claiming batches of 25 at once, waits until they published the appended
   * events, checks each was sent once, and returns the transport they shared.
   */
  private RecordingTransport drainWithThreeRelays(
      List<OutboxEvent> appended, String name, boolean ordered) {
    RecordingTransport transport = new RecordingTransport();
    for (int r = 0; r < 3; r++) {
      relay(transport, name + "-" + r, b -> b.ordered(ordered).batchSize(25)).start();
    }
    awaitPublished(appended.size());
    assertThat(transport.attempts()).hasSize(appended.size());
    return transport;
  }

  private OutboxRelay relay(
      RecordingTransport transport, String name, UnaryOperator<OutboxRelay.Builder> options) {
    OutboxRelay relay =
        options
            .apply(
                OutboxRelay.builder(dataSource, transport)
                    .name(name)
                    .table(TABLE)
                    .dialect(DERBY)
                    .pollInterval(Duration.ofMillis(20))
                    .listener(contention.of(name)))
            .build();
    relays.add(relay);
    return relay;
  }

  private OutboxAdmin admin() {
    return OutboxAdmin.builder(dataSource).table(TABLE).dialect(DERBY).build();
  }

  private void awaitPublished(int count) {
    OutboxAdmin admin = admin();
    Await.until(
        () -> admin.count(EventStatus.PUBLISHED) == count,
        Duration.ofSeconds(120),
        () -> count + " events published; statuses " + admin.countByStatus() + ", " + contention);
  }

  private static Map<String, List<OutboxEvent>> byAggregate(List<OutboxEvent> events) {
    Map<String, List<OutboxEvent>> byAggregate = new HashMap<>();
    for (OutboxEvent e : events) {
      byAggregate.computeIfAbsent(e.aggregateId(), k -> new ArrayList<>()).add(e);
    }
    return byAggregate;
  }

  /** What the relays met on their way: batches per relay and the database failures they saw. */
  private static final class Contention {
    final Map<String, AtomicInteger> claimedByRelay = new LinkedHashMap<>();
    final Queue<String> failures = new ConcurrentLinkedQueue<>();

    synchronized RelayListener of(String relay) {
      AtomicInteger claimed = claimedByRelay.computeIfAbsent(relay, k -> new AtomicInteger());
      return new RelayListener() {
        @Override
        public void batchClaimed(int size, Duration claimTime) {
          claimed.addAndGet(size);
        }

        @Override
        public void databaseFailed(String error, Duration pause) {
          failures.add(relay + ": " + error);
        }
      };
    }

    @Override
    public synchronized String toString() {
      return "events claimed per relay " + claimedByRelay + ", database failures " + failures;
    }
  }
}
