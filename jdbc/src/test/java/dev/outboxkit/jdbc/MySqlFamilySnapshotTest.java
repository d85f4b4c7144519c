package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** MySQL and MariaDB: the snapshot's four reads are index lookups by status. */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class MySqlFamilySnapshotTest extends SnapshotContractTest {
  /** Hides {@link DatabaseTest#flavors()}: the plans checked are MySQL's and MariaDB's. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.MYSQL, Flavor.MARIADB);
  }

  /** A query yielding column {@code n} = 1..{@code count}. */
  private String numbers(int count) {
    if (flavor() == Flavor.MARIADB) {
      return "SELECT seq AS n FROM seq_1_to_" + count;
    }
    // MySQL has no sequence engine: six digit tables cross-joined give 1..1,000,000.
    String digits = DIGITS;
    return "SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d + 1 AS n"
        + " FROM "
        + digits
        + " a, "
        + digits
        + " b, "
        + digits
        + " c, "
        + digits
        + " e, "
        + digits
        + " f, "
        + digits
        + " g WHERE a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d < "
        + count;
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
            + " SELECT CONCAT('00000000-0000-7000-8000-', LPAD(HEX(n), 12, '0')), 'Order',"
            + " CONCAT('a', n % 1000), 'E', x'00', 'application/json',"
            + " UTC_TIMESTAMP(6) - INTERVAL ("
            + n
            + " - n) SECOND, UTC_TIMESTAMP(6), "
            + status("n", n)
            + ", UTC_TIMESTAMP(6) FROM ("
            + numbers(n)
            + ") numbers");
    execute("ANALYZE TABLE outbox_event");
  }

  @Override
  protected void assertIndexDriven(String snapshotSql) throws SQLException {
    List<String> reads = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN " + snapshotSql)) {
      while (rs.next()) {
        if ("outbox_event".equals(rs.getString("table"))) {
          String read = rs.getString("type") + ":" + rs.getString("key") + ":" + rs.getLong("rows");
          reads.add(read);
          // An index lookup by status (never ALL or a full index scan) over few rows.
          assertThat(rs.getString("type")).as(read).isEqualTo("ref");
          assertThat(rs.getString("key")).as(read).startsWith("outbox_event_");
          assertThat(rs.getLong("rows")).as("rows examined: %s", read).isLessThan(10_000);
        }
      }
    }
    assertThat(reads).as("one read per figure").hasSize(6);
  }
}
