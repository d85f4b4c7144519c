package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlSnapshotTest extends MySqlFamilySnapshotTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }

  @Override
  protected String numbers(int count) {
    // MySQL has no sequence engine: six digit tables cross-joined give 1..1,000,000.
    return "SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d + 1 AS n"
        + " FROM "
        + MySqlClaimPlanTest.DIGITS
        + " a, "
        + MySqlClaimPlanTest.DIGITS
        + " b, "
        + MySqlClaimPlanTest.DIGITS
        + " c, "
        + MySqlClaimPlanTest.DIGITS
        + " e, "
        + MySqlClaimPlanTest.DIGITS
        + " f, "
        + MySqlClaimPlanTest.DIGITS
        + " g WHERE a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * f.d + 100000 * g.d < "
        + count;
  }
}
