package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.testkit.Flavor;
import java.sql.SQLException;

/** H2 (development and tests only) in memory: 100,000 rows, enough to show the plan. */
class H2SnapshotTest extends SnapshotContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }

  @Override
  protected int tableSize() {
    return 100_000;
  }

  @Override
  protected void load(int n) throws SQLException {
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT RANDOM_UUID(), 'Order', CONCAT('a', MOD(X, 1000)), 'E', X'00',"
            + " 'application/json', DATEADD(SECOND, X - "
            + n
            + ", CURRENT_TIMESTAMP), CURRENT_TIMESTAMP, "
            + status("X", n)
            + ", CURRENT_TIMESTAMP FROM SYSTEM_RANGE(1, "
            + n
            + ")");
  }

  @Override
  protected void assertIndexDriven(String snapshotSql) throws SQLException {
    String plan = String.join("\n", explain(snapshotSql));
    assertThat(plan).doesNotContain("tableScan").contains("OUTBOX_EVENT_STATUS_IDX");
  }
}
