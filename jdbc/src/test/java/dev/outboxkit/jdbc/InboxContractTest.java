package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** What {@link Inbox} promises consumers, on every database. */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class InboxContractTest extends DatabaseTest {
  private Inbox inbox;

  /** An inbox per database, as applications have: it keeps the dialect of its first connection. */
  @BeforeParameterizedClassInvocation
  void createInbox() {
    inbox = Inbox.create();
  }

  @BeforeEach
  void createTables() throws SQLException {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createInbox(c);
    }
    execute(
        "CREATE TABLE IF NOT EXISTS ledger (event_id VARCHAR(36) NOT NULL, amount INT NOT NULL)");
    execute("DELETE FROM ledger");
    execute("DELETE FROM outbox_inbox");
  }

  /** One delivery in a transaction of its own that commits; whether it applied the effect. */
  private boolean deliverAndCommit(UUID id) throws Exception {
    try (Connection c = transaction()) {
      boolean applied = consume(c, id, 10);
      c.commit();
      return applied;
    }
  }

  /** The consumer: apply the effect once per event id. Returns whether it applied it. */
  private boolean consume(Connection c, UUID eventId, int amount) throws SQLException {
    if (!inbox.markProcessed(c, "billing", eventId)) {
      return false;
    }
    try (PreparedStatement ps = c.prepareStatement("INSERT INTO ledger VALUES (?, ?)")) {
      ps.setString(1, eventId.toString());
      ps.setInt(2, amount);
      ps.executeUpdate();
    }
    return true;
  }

  private long effects() throws SQLException {
    return count("SELECT COUNT(*) FROM ledger");
  }

  @Test
  void a_missing_inbox_table_is_named_with_the_ddl_to_run() throws Exception {
    execute("DROP TABLE IF EXISTS no_such_inbox");
    Inbox missing = Inbox.builder().table("no_such_inbox").build();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> missing.markProcessed(c, "billing", UUID.randomUUID()))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("inbox table no_such_inbox does not exist")
          .hasMessageContaining("OutboxSchema.createInbox(connection, \"no_such_inbox\"");
      c.rollback();
    }
  }

  @Test
  void a_named_dialect_that_is_not_the_databases_is_said_as_such() throws Exception {
    Dialect wrong = dialect == Dialect.POSTGRESQL ? Dialect.MARIADB : Dialect.POSTGRESQL;
    Inbox misnamed = Inbox.builder().dialect(wrong).build();
    try (Connection c = transaction()) {
      assertThatThrownBy(() -> misnamed.markProcessed(c, "billing", UUID.randomUUID()))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("dialect " + wrong + " was named")
          .hasMessageContaining("Dialect." + dialect);
      c.rollback();
    }
  }

  @Test
  void the_effect_and_the_inbox_row_commit_together() throws Exception {
    UUID id = UUID.randomUUID();
    assertThat(deliverAndCommit(id)).isTrue();
    assertThat(effects()).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM outbox_inbox")).isEqualTo(1);
  }

  @Test
  void a_second_delivery_of_the_same_event_is_skipped() throws Exception {
    UUID id = UUID.randomUUID();
    for (int delivery = 0; delivery < 3; delivery++) {
      deliverAndCommit(id);
    }
    assertThat(effects()).isEqualTo(1);
  }

  @Test
  void different_consumers_each_process_the_event_once() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertThat(inbox.markProcessed(c, "billing", id)).isTrue();
      assertThat(inbox.markProcessed(c, "shipping", id)).isTrue();
      assertThat(inbox.markProcessed(c, "billing", id)).isFalse();
      c.commit();
    }
  }

  @Test
  void a_rollback_after_marking_lets_the_redelivery_apply_the_effect() throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = transaction()) {
      assertThat(consume(c, id, 10)).isTrue();
      c.rollback(); // e.g. the effect failed further on
    }
    assertThat(effects()).isZero();
    assertThat(deliverAndCommit(id)).isTrue();
    assertThat(effects()).isEqualTo(1);
  }

  @Test
  void two_concurrent_deliveries_apply_the_effect_once() throws Exception {
    UUID id = UUID.randomUUID();
    CountDownLatch firstMarked = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> first =
          pool.submit(
              () -> {
                try (Connection c = transaction()) {
                  boolean applied = consume(c, id, 10);
                  firstMarked.countDown();
                  Thread.sleep(300); // hold the row while the second delivery arrives
                  c.commit();
                  return applied;
                }
              });
      assertThat(firstMarked.await(10, TimeUnit.SECONDS)).isTrue();
      Future<Boolean> second = pool.submit(() -> deliverAndCommit(id));
      assertThat(first.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(second.get(10, TimeUnit.SECONDS)).isFalse();
    } finally {
      pool.shutdownNow();
    }
    assertThat(effects()).isEqualTo(1);
  }

  @Test
  void marking_on_an_auto_commit_connection_is_refused() throws Exception {
    try (Connection c = ds.getConnection()) {
      assertThatThrownBy(() -> inbox.markProcessed(c, "billing", UUID.randomUUID()))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("setAutoCommit(false)");
      c.setAutoCommit(false);
      assertThatThrownBy(() -> inbox.markProcessed(c, " ", UUID.randomUUID()))
          .isInstanceOf(IllegalArgumentException.class);
      c.rollback();
    }
  }

  @Test
  void purge_deletes_only_rows_older_than_the_retention() throws Exception {
    try (Connection c = transaction()) {
      for (int i = 0; i < 5; i++) {
        inbox.markProcessed(c, "billing", UUID.randomUUID());
      }
      c.commit();
    }
    Inbox small = Inbox.builder().purgeBatchSize(2).build();
    assertThat(small.purgeOlderThan(ds, Duration.ofHours(1))).isZero();
    assertThat(small.purgeOlderThan(ds, Duration.ZERO)).isEqualTo(5);
    assertThat(count("SELECT COUNT(*) FROM outbox_inbox")).isZero();
  }
}
