package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MariaDbClaimPlanTest extends MySqlFamilyClaimPlanTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }

  @Override
  protected String numbers() {
    return "SELECT seq AS n FROM seq_1_to_200000";
  }
}
