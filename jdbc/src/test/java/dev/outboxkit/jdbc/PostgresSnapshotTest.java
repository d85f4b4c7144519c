package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.testkit.Flavor;
import java.sql.SQLException;

class PostgresSnapshotTest extends SnapshotContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  @Override
  protected int tableSize() {
    return 1_000_000;
  }

  @Override
  protected void load(int n) throws SQLException {
    // Priorities cycle through the whole range: the oldest PENDING row must be found across them.
    execute(
        "INSERT INTO outbox_event (id, aggregate_type, aggregate_id, event_type, payload,"
            + " content_type, occurred_at, available_at, status, published_at, priority)"
            + " SELECT gen_random_uuid(), 'Order', 'a' || (g % 1000), 'E', '\\x00'::bytea,"
            + " 'application/json', now() - ("
            + n
            + " - g) * INTERVAL '1 second', now(), "
            + status("g", n)
            + ", now(), (g % 19) - 9 FROM generate_series(1, "
            + n
            + ") g");
  }

  @Override
  protected void assertIndexDriven(String snapshotSql) throws SQLException {
    // Before and after statistics exist: a bulk load is often followed by a poll before
    // autovacuum analyzed the table.
    String fresh = String.join("\n", explain(snapshotSql));
    execute("ANALYZE outbox_event");
    String analyzed = String.join("\n", explain(snapshotSql));
    for (String plan : new String[] {fresh, analyzed}) {
      assertThat(plan)
          .doesNotContain("Seq Scan")
          .contains("outbox_event_claim_idx")
          .contains("outbox_event_lease_idx")
          .contains("outbox_event_dead_idx")
          .contains("outbox_event_withdrawn_idx");
    }
  }
}
