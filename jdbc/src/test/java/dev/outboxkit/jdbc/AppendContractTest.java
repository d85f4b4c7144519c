package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.internal.EngineAccess;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** What {@link Outbox#append} promises, on every database. */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class AppendContractTest extends DatabaseTest {
  /** The columns EventRows reads, as the claim statements return them. */
  private static final String EVENT_COLUMNS = EngineAccess.eventColumns();

  private static OutboxEvent.Builder event(String aggregateId) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced").payload("{\"n\":1}");
  }

  private List<OutboxEvent> readAll(String table) throws SQLException {
    List<OutboxEvent> events = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT " + EVENT_COLUMNS + " FROM " + table + " ORDER BY seq")) {
      while (rs.next()) {
        events.add(EngineAccess.readEvent(rs, sql()));
      }
    }
    return events;
  }

  @Test
  void one_default_writer_serves_this_database_and_another_asking_each_driver_connection_once()
      throws Exception {
    int[] metadataCalls = {0};
    Set<Connection> driverConnections = new HashSet<>();
    try (org.h2.jdbc.JdbcConnection h2 =
        (org.h2.jdbc.JdbcConnection)
            java.sql.DriverManager.getConnection("jdbc:h2:mem:" + UUID.randomUUID())) {
      OutboxSchema.create(h2);
      h2.setAutoCommit(false);
      for (int i = 0; i < 6; i++) {
        // A pool's wrapper, new per borrow as HikariCP's are, over this database or H2 in turns.
        boolean here = i % 2 == 0;
        try (Connection pooled = here ? ds.getConnection() : null) {
          Connection driver = here ? pooled.unwrap(Connection.class) : h2;
          driverConnections.add(driver);
          Connection wrapper = countingMetadata(here ? pooled : h2, metadataCalls);
          wrapper.setAutoCommit(false);
          Outbox.append(wrapper, event("o-" + i).build());
          wrapper.commit();
        }
      }
      try (Statement st = h2.createStatement();
          ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM outbox_event")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(3);
      }
    }
    assertThat(rows()).isEqualTo(3);
    assertThat(metadataCalls[0]).isEqualTo(driverConnections.size());
  }

  /** A pool-like wrapper that counts {@code getMetaData} calls and delegates everything. */
  private static Connection countingMetadata(Connection target, int[] calls) {
    return (Connection)
        java.lang.reflect.Proxy.newProxyInstance(
            Connection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getMetaData")) {
                calls[0]++;
              }
              try {
                return method.invoke(target, args);
              } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }

  @Test
  void append_then_commit_stores_exactly_one_row_with_every_field_intact() throws Exception {
    byte[] binary = new byte[256];
    for (int i = 0; i < binary.length; i++) {
      binary[i] = (byte) i;
    }
    OutboxEvent e =
        OutboxEvent.builder("Commande", "ordre-42 ü 漢字", "CommandePassée")
            .payload(binary, "application/octet-stream")
            .header("correlation-id", "c-1")
            .header("note", "grüße, \"quoted\" \\ back\tslash 🚀")
            .destination("orders.v1")
            .tenant("acme")
            .schemaVersion(3)
            // A DST change night in many zones, with full microseconds.
            .occurredAt(Instant.parse("2026-03-29T01:30:00.123456Z"))
            .expiresAt(Instant.parse("2099-12-31T23:59:59.999999Z"))
            .build();

    try (Connection c = transaction()) {
      Outbox.append(c, e);
      c.commit();
    }

    assertThat(readAll("outbox_event")).containsExactly(e);
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT status, attempts, available_at FROM outbox_event")) {
      rs.next();
      assertThat(rs.getString("status")).isEqualTo("PENDING");
      assertThat(rs.getInt("attempts")).isZero();
      Instant availableAt = sql().getInstant(rs, "available_at");
      assertThat(Duration.between(availableAt, Instant.now()).abs())
          .isLessThan(Duration.ofMinutes(1));
    }
  }

  @Test
  void a_delayed_event_becomes_available_later_by_the_database_clock() throws Exception {
    try (Connection c = transaction()) {
      Outbox.append(c, event("1").build());
      Outbox.append(c, event("2").delay(Duration.ofHours(2)).build());
      c.commit();
    }
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT available_at FROM outbox_event ORDER BY seq")) {
      rs.next();
      Instant now = sql().getInstant(rs, "available_at");
      rs.next();
      Instant later = sql().getInstant(rs, "available_at");
      assertThat(Duration.between(now, later))
          .isBetween(Duration.ofMinutes(119), Duration.ofMinutes(121));
    }
  }

  @Test
  void rollback_leaves_no_row() throws Exception {
    try (Connection c = transaction()) {
      Outbox.append(c, event("1").build());
      c.rollback();
    }
    assertThat(rows()).isZero();
  }

  @Test
  void rollback_after_appendAll_of_a_thousand_leaves_none() throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      events.add(event("a" + (i % 10)).build());
    }
    try (Connection c = transaction()) {
      Outbox.appendAll(c, events);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM outbox_event")) {
        rs.next();
        assertThat(rs.getInt(1)).as("visible inside the transaction").isEqualTo(1000);
      }
      c.rollback();
    }
    assertThat(rows()).isZero();
  }

  @Test
  void appendAll_keeps_list_order_as_claim_order() throws Exception {
    List<OutboxEvent> events = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      events.add(event("agg").header("n", Integer.toString(i)).build());
    }
    try (Connection c = transaction()) {
      Outbox.appendAll(c, events);
      c.commit();
    }
    assertThat(readAll("outbox_event")).containsExactlyElementsOf(events);
  }

  @Test
  void append_leaves_the_connection_as_it_found_it() throws Exception {
    try (Connection c = transaction()) {
      int isolation = c.getTransactionIsolation();
      boolean readOnly = c.isReadOnly();
      Outbox.append(c, event("1").build());
      Outbox.appendAll(c, List.of(event("2").build()));

      assertThat(c.getAutoCommit()).isFalse();
      assertThat(c.isClosed()).isFalse();
      assertThat(c.getTransactionIsolation()).isEqualTo(isolation);
      assertThat(c.isReadOnly()).isEqualTo(readOnly);
      c.rollback(); // nothing was committed behind our back
    }
    assertThat(rows()).isZero();
  }

  @Test
  void append_on_an_auto_commit_connection_is_refused_and_writes_nothing() throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThat(c.getAutoCommit()).isTrue();
      assertThatThrownBy(() -> Outbox.append(c, event("1").build()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("setAutoCommit(false)")
          .hasMessageContaining("JTA")
          .hasMessageContaining("managedTransactions(true)");
      assertThatThrownBy(() -> Outbox.appendAll(c, List.of(event("1").build())))
          .isInstanceOf(IllegalStateException.class);
      assertThat(c.getAutoCommit()).isTrue();
    }
    assertThat(rows()).isZero();
  }

  @Test
  void auto_commit_appends_work_when_explicitly_allowed() throws Exception {
    OutboxWriter writer = Outbox.writer().allowAutoCommit(true).build();
    try (Connection c = ds.getConnection()) {
      writer.append(c, event("1").build());
    }
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void an_oversized_payload_is_refused_before_anything_is_written() throws Exception {
    OutboxWriter writer = Outbox.writer().maxPayloadBytes(1000).build();
    OutboxEvent big = event("1").payload(new byte[1001], "application/octet-stream").build();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.appendAll(c, List.of(event("ok").build(), big)))
          .isInstanceOfSatisfying(
              InvalidEventException.class, ex -> assertThat(ex.field()).isEqualTo("payload"))
          .hasMessageContaining("1001 bytes; the limit is 1000");
      c.commit();
    }
    assertThat(rows()).isZero();
  }

  @Test
  void the_default_payload_limit_is_one_mebibyte() throws Exception {
    OutboxEvent atLimit =
        event("1")
            .payload(new byte[OutboxWriter.DEFAULT_MAX_PAYLOAD_BYTES], "application/x")
            .build();
    OutboxEvent over =
        event("2")
            .payload(new byte[OutboxWriter.DEFAULT_MAX_PAYLOAD_BYTES + 1], "application/x")
            .build();
    try (Connection c = transaction()) {
      Outbox.append(c, atLimit);
      assertThatThrownBy(() -> Outbox.append(c, over)).isInstanceOf(InvalidEventException.class);
      c.commit();
    }
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void a_duplicate_event_id_fails_the_insert() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      Outbox.append(c, event("1").id(id).build());
      c.commit();
      assertThatThrownBy(() -> Outbox.append(c, event("1").id(id).build()))
          .isInstanceOf(SQLException.class);
      c.rollback();
    }
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void schema_creation_is_idempotent() throws Exception {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
      OutboxSchema.create(c);
    }
    try (Connection c = transaction()) {
      Outbox.append(c, event("1").build());
      c.commit();
    }
    assertThat(rows()).isEqualTo(1);
  }

  @Test
  void a_custom_table_name_works_end_to_end() throws Exception {
    OutboxWriter writer = Outbox.writer().table("billing_outbox").build();
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, "billing_outbox");
      OutboxSchema.create(c, "billing_outbox");
    }
    OutboxEvent e = event("inv-1").build();
    try (Connection c = transaction()) {
      writer.append(c, e);
      c.commit();
    }
    assertThat(readAll("billing_outbox")).containsExactly(e);
    assertThat(rows()).as("default table untouched").isZero();
  }

  @Test
  void an_invalid_table_name_is_refused_before_any_sql_runs() throws Exception {
    assertThatThrownBy(() -> Outbox.writer().table("x; drop table y"))
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("not a plain SQL identifier");
    try (Connection c = ds.getConnection()) {
      assertThatThrownBy(() -> OutboxSchema.create(c, "outbox_event; DROP TABLE outbox_event"))
          .isInstanceOf(OutboxConfigurationException.class);
      assertThatThrownBy(() -> OutboxSchema.create(c, "a.b.c"))
          .isInstanceOf(OutboxConfigurationException.class);
    }
    assertThat(rows()).isZero(); // the table is still there
  }

  @Test
  void concurrent_appenders_get_unique_ids_and_per_connection_increasing_seq() throws Exception {
    int threads = 8;
    int perThread = 2000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        String writer = "w" + t;
        done.add(
            pool.submit(
                () -> {
                  try (Connection c = transaction()) {
                    for (int i = 0; i < perThread; i++) {
                      Outbox.append(c, event(writer).header("n", Integer.toString(i)).build());
                      if (i % 100 == 99) {
                        c.commit();
                      }
                    }
                    c.commit();
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }

    Set<UUID> ids = new HashSet<>();
    Map<String, Integer> lastN = new HashMap<>();
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT " + EVENT_COLUMNS + " FROM outbox_event ORDER BY seq");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        OutboxEvent e = EngineAccess.readEvent(rs, sql());
        ids.add(e.id());
        int n = Integer.parseInt(e.headers().get("n"));
        Integer previous = lastN.put(e.aggregateId(), n);
        assertThat(n)
            .as("seq order of writer %s", e.aggregateId())
            .isEqualTo(previous == null ? 0 : previous + 1);
      }
    }
    assertThat(ids).hasSize(threads * perThread);
    assertThat(lastN).hasSize(threads).allSatisfy((w, n) -> assertThat(n).isEqualTo(perThread - 1));
  }

  @Test
  void payload_text_is_stored_as_utf8() throws Exception {
    OutboxEvent e = event("1").payload("{\"name\":\"Zoë 漢字\"}").build();
    try (Connection c = transaction()) {
      Outbox.append(c, e);
      c.commit();
    }
    assertThat(new String(readAll("outbox_event").get(0).payload(), StandardCharsets.UTF_8))
        .isEqualTo("{\"name\":\"Zoë 漢字\"}");
  }
}
