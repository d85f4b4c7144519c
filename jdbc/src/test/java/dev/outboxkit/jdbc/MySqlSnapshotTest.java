package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlSnapshotTest extends MySqlFamilySnapshotTest {
  private static final String DIGITS =
      "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
          + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8"
          + " UNION ALL SELECT 9)";

  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }

  @Override
  protected String numbers(int count) {
    // MySQL has no sequence engine: six digit tables cross-joined give 1..1,000,000.
    return "SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d + 1 AS n"
        + " FROM "
        + DIGITS
        + " a, "
        + DIGITS
        + " b, "
        + DIGITS
        + " c, "
        + DIGITS
        + " e, "
        + DIGITS
        + " f, "
        + DIGITS
        + " g WHERE a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d < "
        + count;
  }
}
