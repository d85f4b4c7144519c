package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.OutboxSchema;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A relay transaction the server rolled back as a deadlock victim runs again, a bounded number of
 * times; other failures go up at once. Deadlocks between relays cannot be produced on demand, so
 * the data source in front of a real H2 database fails the next connections with the states
 * MySQL/MariaDB and PostgreSQL use.
 */
class RelayStoreDeadlockTest {
  private final FailingDataSource ds = new FailingDataSource();
  private RelayStore store;

  @BeforeEach
  void setUp() throws SQLException {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
    }
    store = new RelayStore(ds, TableName.of("outbox_event"), Dialect.H2, Duration.ofSeconds(10));
    store.reclaimExpiredLeases(5); // learns the dialect
  }

  @Test
  void a_transaction_chosen_as_deadlock_victim_runs_again() throws SQLException {
    ds.failNext(DEADLOCK_ATTEMPTS_MINUS_ONE, "40001");

    assertThat(store.reclaimExpiredLeases(5).pending).isZero();
    assertThat(ds.calls.get()).isEqualTo(RelayStore.DEADLOCK_ATTEMPTS);
  }

  @Test
  void a_postgresql_deadlock_counts_too() throws SQLException {
    ds.failNext(1, "40P01");

    assertThat(store.reclaimExpiredLeases(5).pending).isZero();
    assertThat(ds.calls.get()).isEqualTo(2);
  }

  @Test
  void deadlocks_beyond_the_attempts_go_up() {
    ds.failNext(RelayStore.DEADLOCK_ATTEMPTS, "40001");

    assertThatThrownBy(() -> store.reclaimExpiredLeases(5))
        .isInstanceOf(SQLException.class)
        .extracting(e -> ((SQLException) e).getSQLState())
        .isEqualTo("40001");
    assertThat(ds.calls.get()).isEqualTo(RelayStore.DEADLOCK_ATTEMPTS);
  }

  @Test
  void other_failures_go_up_at_once() {
    ds.failNext(1, "08006");

    assertThatThrownBy(() -> store.reclaimExpiredLeases(5)).isInstanceOf(SQLException.class);
    assertThat(ds.calls.get()).isEqualTo(1);
  }

  private static final int DEADLOCK_ATTEMPTS_MINUS_ONE = RelayStore.DEADLOCK_ATTEMPTS - 1;

  /** Real H2 connections, except that the next {@code n} requests fail with a given SQL state. */
  private static final class FailingDataSource implements DataSource {
    private final String url = "jdbc:h2:mem:deadlock-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
    private final AtomicInteger failures = new AtomicInteger();
    private final AtomicInteger calls = new AtomicInteger();
    private volatile String state;

    void failNext(int n, String sqlState) {
      state = sqlState;
      failures.set(n);
      calls.set(0);
    }

    @Override
    public Connection getConnection() throws SQLException {
      calls.incrementAndGet();
      if (failures.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        throw new SQLException("injected failure", state);
      }
      return DriverManager.getConnection(url);
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return false;
    }
  }
}
