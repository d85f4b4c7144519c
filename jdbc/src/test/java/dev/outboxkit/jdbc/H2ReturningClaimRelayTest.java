package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.util.List;

/**
 * The relay suite with the one-statement claim ({@link ClaimCapability#RETURNING}) on a second
 * database: H2 has no {@code UPDATE … RETURNING}, but reads the rows a {@code MERGE} changed from
 * its {@code FINAL TABLE}, and skips rows other transactions hold in the merge's source. The
 * statements are a user's overrides, proving the capability apart from PostgreSQL's text.
 */
class H2ReturningClaimRelayTest extends RelayContractTest {
  /**
   * The claim, its limit bound before its owner: a MERGE reads its source once, where an {@code
   * UPDATE … WHERE seq IN (subquery)} ran 300 times slower here. The source's {@code FOR UPDATE}
   * does not keep a second merge off the same rows (without the {@code WHEN MATCHED} re-check of
   * the status, made once the row lock is granted, this suite saw 767 duplicates in 20,000).
   */
  private static final String CLAIM =
      "MERGE INTO {table} t USING (SELECT c.seq FROM {table} c"
          + " WHERE c.status = 'PENDING' AND c.available_at <= {now}%s"
          + " ORDER BY c.priority DESC, c.seq {rows :limit} FOR UPDATE SKIP LOCKED) s ON t.seq = s.seq"
          + " WHEN MATCHED AND t.status = 'PENDING'"
          + " THEN UPDATE SET status = 'IN_FLIGHT', lease_owner = :owner,"
          + " lease_until = {now + :lease}";

  private static final String HEAD =
      " AND NOT EXISTS (SELECT 1 FROM {table} p"
          + " WHERE p.aggregate_type = c.aggregate_type AND p.aggregate_id = c.aggregate_id"
          + " AND p.seq < c.seq AND p.status IN ('PENDING', 'IN_FLIGHT', 'DEAD'))";

  private static final SqlDialect DIALECT =
      Dialect.H2.preset().toBuilder("H2, RETURNING")
          .claim(ClaimCapability.RETURNING)
          .statement(
              "claimUnordered",
              "SELECT {event_columns:o},"
                  + " CASE WHEN o.expires_at <= {now} THEN 1 ELSE 0 END AS expired"
                  + " FROM FINAL TABLE ("
                  + String.format(CLAIM, "")
                  + ") o ORDER BY o.seq")
          .statement(
              "claimOrdered",
              "SELECT {event_columns:o},"
                  + " CASE WHEN o.expires_at <= {now} THEN 1 ELSE 0 END AS expired,"
                  + " CASE WHEN EXISTS (SELECT 1 FROM {table} r"
                  + " WHERE r.aggregate_type = o.aggregate_type"
                  + " AND r.aggregate_id = o.aggregate_id"
                  + " AND r.status = 'PENDING' AND r.seq > o.seq) THEN 1 ELSE 0 END"
                  + " AS has_successor"
                  + " FROM FINAL TABLE ("
                  + String.format(CLAIM, HEAD)
                  + ") o ORDER BY o.seq")
          .build();

  /** Hides {@link DatabaseTest#flavors()}: the dialect is H2's, so it runs there alone. */
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.H2);
  }

  @Override
  protected SqlDialect relayDialect() {
    return DIALECT;
  }
}
