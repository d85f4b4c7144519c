package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.internal.EngineAccess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link OutboxAdmin#snapshot()} counts right and reads every figure from an index of live rows, so
 * polling it for metrics stays cheap with a large history of PUBLISHED rows.
 *
 * <p>The table is loaded server-side (one INSERT … SELECT over a number series): row {@code g} of
 * {@code n} is PENDING if it is among the last 500, else IN_FLIGHT if {@code g % 50000 = 1}, DEAD
 * if {@code g % 100000 = 7}, EXPIRED if {@code g % 100000 = 3}, CANCELLED if {@code g % 100000 =
 * 11}, SUPERSEDED if {@code g % 20000 = 13}, else PUBLISHED; it occurred {@code n - g} seconds
 * before the load, so the oldest PENDING event is 499 seconds old at load time.
 */
abstract class SnapshotContractTest extends DatabaseTest {
  private static final int PENDING_TAIL = 500;

  /** Rows to load: 1,000,000 on real servers. */
  protected abstract int tableSize();

  /** Runs this database's INSERT … SELECT of {@code n} rows, with {@link #status(String, int)}. */
  protected abstract void load(int n) throws SQLException;

  /** Asserts that the EXPLAIN of this statement reads only indexes of live rows. */
  protected abstract void assertIndexDriven(String snapshotSql) throws SQLException;

  /** The status of row {@code g} of {@code n}, as an SQL expression over column {@code g}. */
  protected static String status(String g, int n) {
    return "CASE WHEN "
        + g
        + " > "
        + (n - PENDING_TAIL)
        + " THEN 'PENDING' WHEN MOD("
        + g
        + ", 50000) = 1 THEN 'IN_FLIGHT' WHEN MOD("
        + g
        + ", 100000) = 7 THEN 'DEAD' WHEN MOD("
        + g
        + ", 100000) = 3 THEN 'EXPIRED' WHEN MOD("
        + g
        + ", 100000) = 11 THEN 'CANCELLED' WHEN MOD("
        + g
        + ", 20000) = 13 THEN 'SUPERSEDED' ELSE 'PUBLISHED' END";
  }

  /** The same rule in Java, for the expected figures. */
  private static EventStatus statusOf(long g, int n) {
    if (g > n - PENDING_TAIL) {
      return EventStatus.PENDING;
    } else if (g % 50000 == 1) {
      return EventStatus.IN_FLIGHT;
    } else if (g % 100000 == 7) {
      return EventStatus.DEAD;
    } else if (g % 100000 == 3) {
      return EventStatus.EXPIRED;
    } else if (g % 100000 == 11) {
      return EventStatus.CANCELLED;
    } else if (g % 20000 == 13) {
      return EventStatus.SUPERSEDED;
    }
    return EventStatus.PUBLISHED;
  }

  protected String snapshotSql() {
    return EngineAccess.statementText(dialect.preset(), "outbox_event", "snapshot");
  }

  /** EXPLAIN output, one string per result row, columns joined with " | ". */
  protected List<String> explain(String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN " + sql)) {
      int columns = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= columns; i++) {
          row.append(i > 1 ? " | " : "").append(rs.getString(i));
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }

  @Test
  void snapshot_counts_live_rows_from_indexes_in_a_large_table() throws Exception {
    int n = tableSize();
    Instant before = Instant.now();
    load(n);
    long inFlight = 0;
    long dead = 0;
    long cancelled = 0;
    long superseded = 0;
    for (long g = 1; g <= n; g++) {
      EventStatus s = statusOf(g, n);
      inFlight += s == EventStatus.IN_FLIGHT ? 1 : 0;
      dead += s == EventStatus.DEAD ? 1 : 0;
      cancelled += s == EventStatus.CANCELLED ? 1 : 0;
      superseded += s == EventStatus.SUPERSEDED ? 1 : 0;
    }

    assertIndexDriven(snapshotSql());
    OutboxSnapshot snapshot = OutboxAdmin.create(ds).snapshot();

    assertThat(snapshot.pending()).isEqualTo(PENDING_TAIL);
    assertThat(snapshot.inFlight()).isEqualTo(inFlight).isPositive();
    assertThat(snapshot.dead()).isEqualTo(dead).isPositive();
    assertThat(snapshot.cancelled()).isEqualTo(cancelled).isPositive();
    assertThat(snapshot.superseded()).isEqualTo(superseded).isGreaterThan(cancelled);
    // 499 s old at load time; the load and the snapshot add their own (unknown) durations.
    Duration sinceLoadStarted = Duration.between(before, Instant.now()).plusSeconds(2);
    assertThat(snapshot.oldestPendingAge())
        .hasValueSatisfying(
            age ->
                assertThat(age)
                    .isBetween(
                        Duration.ofSeconds(PENDING_TAIL - 1).minusSeconds(2),
                        Duration.ofSeconds(PENDING_TAIL - 1).plus(sinceLoadStarted)));
    // The gauge's own statement finds the same row.
    assertThat(OutboxAdmin.create(ds).oldestPendingAge())
        .hasValueSatisfying(
            age ->
                assertThat(age)
                    .isBetween(
                        Duration.ofSeconds(PENDING_TAIL - 1).minusSeconds(2),
                        Duration.ofSeconds(PENDING_TAIL - 1)
                            .plus(Duration.between(before, Instant.now()).plusSeconds(2))));
    assertThat(snapshot.takenAt())
        .isBetween(before.minusSeconds(60), Instant.now().plusSeconds(60));
    assertThat(OutboxAdmin.create(ds).countByStatus())
        .containsEntry(EventStatus.PENDING, (long) PENDING_TAIL)
        .containsEntry(EventStatus.IN_FLIGHT, inFlight)
        .containsEntry(EventStatus.DEAD, dead)
        .containsEntry(EventStatus.CANCELLED, cancelled)
        .containsEntry(EventStatus.SUPERSEDED, superseded);
  }

  @Test
  void snapshot_of_an_empty_table_has_zero_counts_and_no_age() {
    OutboxSnapshot snapshot = OutboxAdmin.create(ds).snapshot();

    assertThat(snapshot.pending()).isZero();
    assertThat(snapshot.inFlight()).isZero();
    assertThat(snapshot.dead()).isZero();
    assertThat(snapshot.cancelled()).isZero();
    assertThat(snapshot.superseded()).isZero();
    assertThat(snapshot.oldestPendingAge()).isEmpty();
    assertThat(snapshot.toString()).contains("pending=0").contains("oldestPendingAge=none");
  }
}
