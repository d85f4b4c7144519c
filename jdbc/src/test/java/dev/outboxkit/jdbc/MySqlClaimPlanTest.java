package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlClaimPlanTest extends MySqlFamilyClaimPlanTest {
  /** The digits 0..9 as column {@code d}; MySQL has no sequence engine. */
  static final String DIGITS =
      "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
          + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8"
          + " UNION ALL SELECT 9)";

  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }

  @Override
  protected String numbers() {
    // MySQL has no sequence engine: digits cross-joined, 1..200,000.
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
        + " f, (SELECT 0 d UNION ALL SELECT 1) g";
  }
}
