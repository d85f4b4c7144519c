package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
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
    store =
        new RelayStore(
            ds, TableName.of("outbox_event"), Dialect.H2.preset(), Duration.ofSeconds(10));
    store.reclaimExpiredLeases(5, 0); // learns the dialect
  }

  @Test
  void a_transaction_chosen_as_deadlock_victim_runs_again() throws SQLException {
    ds.failNext(DEADLOCK_ATTEMPTS_MINUS_ONE, "40001");

    assertThat(store.reclaimExpiredLeases(5, 0).pending).isZero();
    assertThat(ds.calls.get()).isEqualTo(RelayStore.DEADLOCK_ATTEMPTS);
  }

  @Test
  void a_deadlock_is_what_the_dialect_says_it_is() throws SQLException {
    SqlDialect vendor =
        Dialect.H2.preset().toBuilder("H2, with PostgreSQL's deadlock state")
            .errors(Dialect.H2.preset().errors().sqlStates(ErrorCodes.Kind.DEADLOCK, "40P01"))
            .build();
    RelayStore pgLike =
        new RelayStore(ds, TableName.of("outbox_event"), vendor, Duration.ofSeconds(10));
    ds.failNext(1, "40P01");
    assertThat(pgLike.reclaimExpiredLeases(5, 0).pending).isZero();
    assertThat(ds.calls.get()).isEqualTo(2);

    // The preset knows no such state: the failure goes up at once.
    ds.failNext(1, "40P01");
    assertThatThrownBy(() -> store.reclaimExpiredLeases(5, 0)).isInstanceOf(SQLException.class);
    assertThat(ds.calls.get()).isEqualTo(1);
  }

  @Test
  void a_lock_wait_that_ran_out_is_not_run_again_even_reported_as_a_serialization_failure()
      throws SQLException {
    // How Connector/J reports MySQL's lock wait timeout (1205): SQL state 40001.
    SqlDialect mysqlLike =
        Dialect.H2.preset().toBuilder("H2, with MySQL's lock-timeout code")
            .errors(Dialect.H2.preset().errors().vendorCodes(ErrorCodes.Kind.LOCK_TIMEOUT, 1205))
            .build();
    RelayStore store =
        new RelayStore(ds, TableName.of("outbox_event"), mysqlLike, Duration.ofSeconds(10));
    ds.failNext(1, "40001", 1205);

    assertThatThrownBy(() -> store.reclaimExpiredLeases(5, 0)).isInstanceOf(SQLException.class);
    assertThat(ds.calls.get()).isEqualTo(1);
  }

  @Test
  void deadlocks_beyond_the_attempts_go_up() {
    ds.failNext(RelayStore.DEADLOCK_ATTEMPTS, "40001");

    assertThatThrownBy(() -> store.reclaimExpiredLeases(5, 0))
        .isInstanceOf(SQLException.class)
        .extracting(e -> ((SQLException) e).getSQLState())
        .isEqualTo("40001");
    assertThat(ds.calls.get()).isEqualTo(RelayStore.DEADLOCK_ATTEMPTS);
  }

  @Test
  void other_failures_go_up_at_once() {
    ds.failNext(1, "08006");

    assertThatThrownBy(() -> store.reclaimExpiredLeases(5, 0)).isInstanceOf(SQLException.class);
    assertThat(ds.calls.get()).isEqualTo(1);
  }

  private static final int DEADLOCK_ATTEMPTS_MINUS_ONE = RelayStore.DEADLOCK_ATTEMPTS - 1;
}
