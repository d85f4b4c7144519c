package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A lease recovery asked for a window reads only that window where the dialect's statements take
 * it, and says when it read every lease instead: the relay then counts it as its full read.
 */
class RelayStoreLeaseWindowTest {
  private static final long HALF_HOUR = TimeUnit.MINUTES.toMicros(30);
  private static final String RECLAIM_EVERY_LEASE =
      "UPDATE {table} SET status = 'PENDING', lease_owner = NULL, lease_until = NULL,"
          + " lease_losses = lease_losses + 1"
          + " WHERE status = 'IN_FLIGHT' AND lease_until <= {now}";
  private static final String QUARANTINE_EVERY_LEASE =
      "UPDATE {table} SET status = 'DEAD', last_error = :error, published_at = {now},"
          + " lease_owner = NULL, lease_until = NULL, lease_losses = lease_losses + 1"
          + " WHERE status = 'IN_FLIGHT' AND lease_until <= {now}"
          + " AND lease_losses + 1 >= :max_losses";

  private final FailingDataSource ds = new FailingDataSource();

  @BeforeEach
  void aLeaseThatRanOutAnHourAgo() throws SQLException {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
      c.setAutoCommit(false);
      Outbox.append(c, OutboxEvent.builder("Order", "o-1", "OrderPlaced").payload("{}").build());
      try (Statement s = c.createStatement()) {
        s.executeUpdate(
            "UPDATE outbox_event SET status = 'IN_FLIGHT', lease_owner = 'gone@1/1',"
                + " lease_until = DATEADD(HOUR, -1, CURRENT_TIMESTAMP)");
      }
      c.commit();
    }
  }

  @Test
  void the_presets_statements_read_only_the_window() throws SQLException {
    RelayStore.Reclaimed r = store(Dialect.H2.preset()).reclaimExpiredLeases(5, HALF_HOUR);

    assertThat(r.pending).isZero();
    assertThat(r.everyLease).isFalse();
    assertThat(store(Dialect.H2.preset()).reclaimExpiredLeases(5, 0).pending).isEqualTo(1);
  }

  @Test
  void statements_without_the_window_read_every_lease_and_say_so() throws SQLException {
    SqlDialect noWindow =
        Dialect.H2.preset().toBuilder("H2 without lease windows")
            .statement("reclaimExpiredLeases", RECLAIM_EVERY_LEASE)
            .statement("quarantineLostLeases", QUARANTINE_EVERY_LEASE)
            .build();

    RelayStore.Reclaimed r = store(noWindow).reclaimExpiredLeases(5, HALF_HOUR);

    assertThat(r.pending).isEqualTo(1);
    assertThat(r.everyLease).isTrue();
  }

  @Test
  void one_statement_with_the_window_is_not_a_read_of_every_lease() throws SQLException {
    SqlDialect halfWindowed =
        Dialect.H2.preset().toBuilder("H2, reclaim without a lease window")
            .statement("reclaimExpiredLeases", RECLAIM_EVERY_LEASE)
            .build();

    RelayStore.Reclaimed r = store(halfWindowed).reclaimExpiredLeases(5, HALF_HOUR);

    assertThat(r.pending).isEqualTo(1);
    assertThat(r.everyLease).as("quarantine read only the window").isFalse();
  }

  private RelayStore store(SqlDialect dialect) {
    return new RelayStore(ds, TableName.of("outbox_event"), dialect, Duration.ofSeconds(10));
  }
}
