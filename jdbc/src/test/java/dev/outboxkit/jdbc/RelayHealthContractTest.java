package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.SendResult;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A relay's health and its start-up check of the table, on every database: a missing table, an
 * outdated one, a closed data source and a wrong dialect each end in a clear answer naming what to
 * do, never in a relay that says RUNNING while it relays nothing.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class RelayHealthContractTest extends RelayDatabaseTest {
  /** Bound of the waits for relays; generous for a loaded machine, never a timing under test. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private void dropIfExists(String table) throws SQLException {
    execute("DROP TABLE IF EXISTS " + table);
  }

  @Test
  void start_fails_naming_the_ddl_to_run_when_the_table_is_missing() throws Exception {
    dropIfExists("no_such_outbox");
    OutboxRelay relay = relay(new RecordingTransport(), "missing").table("no_such_outbox").build();
    try {
      assertThatThrownBy(relay::start)
          .isInstanceOf(OutboxSchemaException.class)
          .hasMessageContaining("table no_such_outbox does not exist")
          .hasMessageContaining("OutboxSchema.create(connection, \"no_such_outbox\")")
          .hasMessageContaining("OutboxSchema.ddl(Dialect." + dialect);
      assertThat(relay.state()).isEqualTo(OutboxRelay.State.NEW);
      assertThat(relay.health().status()).isEqualTo(RelayHealth.Status.DOWN);
    } finally {
      relay.close();
    }
  }

  @Test
  void start_fails_with_the_alter_table_to_run_when_a_column_is_missing_and_it_mends_it()
      throws Exception {
    dropIfExists("old_outbox");
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c, "old_outbox");
    }
    // A table made before lease_losses existed.
    execute("ALTER TABLE old_outbox DROP COLUMN lease_losses");
    OutboxRelay old = relay(new RecordingTransport(), "old").table("old_outbox").build();
    OutboxSchemaException refused;
    try {
      refused = (OutboxSchemaException) catchStart(old);
    } finally {
      old.close();
    }
    assertThat(refused.table()).isEqualTo("old_outbox");
    assertThat(refused.missingColumns()).containsExactly("lease_losses");
    Matcher alter =
        Pattern.compile("ALTER TABLE old_outbox ADD lease_losses [^;]+")
            .matcher(refused.getMessage());
    assertThat(alter.find()).as(refused.getMessage()).isTrue();

    execute(alter.group()); // the statement the message gives, as an operator would run it
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay mended = relay(transport, "mended").table("old_outbox").build();
        Connection c = transaction()) {
      OutboxWriter.builder().table("old_outbox").build().append(c, event("a", 1));
      c.commit();
      mended.start();
      Await.until(() -> transport.deliveredEvents().size() == 1, PATIENCE, () -> "delivered");
      assertThat(mended.health().status()).isEqualTo(RelayHealth.Status.UP);
    }
  }

  private static RuntimeException catchStart(OutboxRelay relay) {
    try {
      relay.start();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("start() passed");
  }

  @Test
  void a_relay_started_before_its_table_exists_says_down_until_it_is_created() throws Exception {
    dropIfExists("late_outbox");
    RecordingListener heard = new RecordingListener();
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        relay(transport, "late")
            .table("late_outbox")
            .checkTableAtStart(false)
            .listener(heard)
            .build()) {
      relay.start();
      assertThat(relay.state()).isEqualTo(OutboxRelay.State.RUNNING);
      Await.until(
          () -> relay.health().status() == RelayHealth.Status.DOWN,
          PATIENCE,
          () -> "DOWN, was " + relay.health());
      RelayHealth down = relay.health();
      assertThat(down.lastError()).get().asString().contains("table late_outbox does not exist");
      assertThat(down.since()).isPresent();
      // The listener hears of it just after the health changed.
      Await.until(() -> !heard.databaseFailures.isEmpty(), PATIENCE, () -> "a failure heard");
      assertThat(heard.databaseFailures.get(0)).contains("OutboxSchema.create");

      try (Connection c = ds.getConnection()) {
        OutboxSchema.create(c, "late_outbox");
      }
      try (Connection c = transaction()) {
        OutboxWriter.builder().table("late_outbox").build().append(c, event("a", 1));
        c.commit();
      }
      Await.until(() -> transport.deliveredEvents().size() == 1, PATIENCE, () -> "delivered");
      Await.until(() -> relay.health().isUp(), PATIENCE, () -> "UP again, was " + relay.health());
      assertThat(relay.health().lastError()).isEmpty();
      assertThat(relay.health().lastSuccessfulRound()).isPresent();
      Await.until(() -> !heard.databaseRecoveries.isEmpty(), PATIENCE, () -> "a recovery heard");
      assertThat(heard.databaseRecoveries).hasSize(1);
    }
  }

  @Test
  void a_relay_whose_data_source_was_closed_says_down() throws Exception {
    HikariConfig config = new HikariConfig();
    config.setDataSource(ds);
    config.setMaximumPoolSize(2);
    HikariDataSource pool = new HikariDataSource(config);
    RecordingListener heard = new RecordingListener();
    try (OutboxRelay relay =
        OutboxRelay.builder(pool, new RecordingTransport())
            .name("closed-pool")
            .pollInterval(Duration.ofMillis(20))
            .listener(heard)
            .build()) {
      relay.start();
      Await.until(
          () -> relay.health().lastSuccessfulRound().isPresent(), PATIENCE, () -> "a round");
      assertThat(relay.health().status()).isEqualTo(RelayHealth.Status.UP);
      pool.close();
      // A statement under way when the pool closed fails first with the driver's own words
      // ("Communications link failure"); every round after it meets the closed pool.
      Await.until(
          () -> {
            RelayHealth h = relay.health();
            return h.status() == RelayHealth.Status.DOWN
                && h.lastError().orElse("").toLowerCase(Locale.ROOT).contains("closed");
          },
          PATIENCE,
          () -> "DOWN naming the closed pool, was " + relay.health());
      assertThat(relay.state()).isEqualTo(OutboxRelay.State.RUNNING);
      Await.until(() -> !heard.databaseFailures.isEmpty(), PATIENCE, () -> "a failure heard");
    }
  }

  @Test
  void a_named_dialect_that_is_not_the_databases_fails_the_start_and_the_append() throws Exception {
    Dialect wrong = dialect == Dialect.POSTGRESQL ? Dialect.MARIADB : Dialect.POSTGRESQL;
    OutboxRelay relay = relay(new RecordingTransport(), "wrong").dialect(wrong).build();
    try {
      assertThatThrownBy(relay::start)
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("dialect " + wrong + " was named")
          .hasMessageContaining("Dialect." + dialect);
    } finally {
      relay.close();
    }
    OutboxWriter writer = OutboxWriter.builder().dialect(wrong).build();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> writer.append(c, event("a", 1)))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("dialect " + wrong + " was named")
          .hasMessageContaining("Dialect." + dialect);
      c.rollback();
    }
    assertThat(rows()).isZero();
    OutboxAdmin admin = OutboxAdmin.builder(ds).dialect(wrong).build();
    assertThatThrownBy(() -> admin.count(EventStatus.PENDING))
        .isInstanceOf(OutboxStorageException.class)
        .hasMessageContaining("dialect " + wrong + " was named");
  }

  @Test
  void append_to_a_missing_table_names_the_table_and_the_ddl() throws Exception {
    dropIfExists("no_such_outbox");
    OutboxWriter writer = OutboxWriter.builder().table("no_such_outbox").build();
    try (Connection c = transaction()) {
      try (Statement s = c.createStatement()) {
        s.executeUpdate("DELETE FROM outbox_event"); // the caller's own work, still uncommitted
      }
      assertThatThrownBy(() -> writer.append(c, event("a", 1)))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("table no_such_outbox does not exist")
          .hasMessageContaining("OutboxSchema.create(connection, \"no_such_outbox\")");
      c.rollback();
    }
  }

  @Test
  void health_is_degraded_while_the_transport_is_unavailable_and_up_after() throws Exception {
    AtomicBoolean down = new AtomicBoolean(true);
    RecordingTransport transport =
        new RecordingTransport()
            .respondWith(
                m ->
                    down.get()
                        ? SendResult.unavailable("broker down for maintenance")
                        : SendResult.delivered());
    append(3, i -> event("a" + i, i));
    OutboxRelay relay =
        relay(transport, "degraded")
            .outageBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
            .build();
    try {
      assertThat(relay.health().status()).isEqualTo(RelayHealth.Status.DOWN);
      assertThat(relay.health().lastError()).contains("not started");
      relay.start();
      Await.until(
          () -> relay.health().status() == RelayHealth.Status.DEGRADED,
          PATIENCE,
          () -> "DEGRADED, was " + relay.health());
      assertThat(relay.health().lastError())
          .get()
          .asString()
          .contains("broker down for maintenance");
      down.set(false);
      awaitPublished(3, PATIENCE);
      Await.until(() -> relay.health().isUp(), PATIENCE, () -> "UP again, was " + relay.health());
    } finally {
      relay.close();
    }
    assertThat(relay.health().status()).isEqualTo(RelayHealth.Status.DOWN);
    assertThat(relay.health().lastError()).contains("closed");
  }

  @Test
  void a_reserved_word_is_refused_as_table_name_where_it_is_set() {
    for (String reserved : List.of("order", "select", "GROUP", "app.user")) {
      assertThatThrownBy(() -> OutboxRelay.builder(ds, new RecordingTransport()).table(reserved))
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("reserved word");
      assertThatThrownBy(() -> OutboxWriter.builder().table(reserved))
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("reserved word");
    }
  }
}
