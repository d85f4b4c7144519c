package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.testkit.Flavor;
import java.sql.SQLException;
import java.util.List;

class MariaDbSnapshotTest extends SnapshotContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }

  @Override
  protected int tableSize() {
    return 1_000_000;
  }

  @Override
  protected void load(int n) throws SQLException {
    // Ascending ids (valid UUID text) keep the unique index's inserts sequential: random ones
    // double the load time.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at)"
            + " SELECT CONCAT('00000000-0000-7000-8000-', LPAD(HEX(seq), 12, '0')), 'Order',"
            + " CONCAT('a', seq % 1000), 'E', x'00', 'application/json',"
            + " UTC_TIMESTAMP(6) - INTERVAL ("
            + n
            + " - seq) SECOND, UTC_TIMESTAMP(6), "
            + status("seq", n)
            + ", UTC_TIMESTAMP(6) FROM seq_1_to_"
            + n);
    execute("ANALYZE TABLE outbox_event");
  }

  @Override
  protected void assertIndexDriven(String snapshotSql) throws SQLException {
    // Columns: id | select_type | table | type | possible_keys | key | key_len | ref | rows | Extra
    List<String> plan = explain(snapshotSql);
    List<String> reads = plan.stream().filter(r -> r.contains("| outbox_event |")).toList();
    assertThat(reads).as(String.join("\n", plan)).hasSize(4);
    for (String read : reads) {
      String[] col = read.split(" \\| ");
      assertThat(col[3]).as(read).isEqualTo("ref"); // an index lookup by status, never ALL/index
      assertThat(col[5]).as(read).startsWith("outbox_event_");
      assertThat(Long.parseLong(col[8])).as("rows examined: %s", read).isLessThan(10_000);
    }
  }
}
