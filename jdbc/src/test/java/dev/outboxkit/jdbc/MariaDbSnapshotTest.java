package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbSnapshotTest extends MySqlFamilySnapshotTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }

  @Override
  protected String numbers(int count) {
    return "SELECT seq AS n FROM seq_1_to_" + count;
  }
}
