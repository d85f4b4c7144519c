package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRetentionTest extends RetentionContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }

  /**
   * A quarter of the million: MariaDB runs the million rows on the same statements (mysql.sql), and
   * the embedded MySQL 8 server takes about two and a half minutes of a CI run for them.
   */
  @Override
  protected int largeTableRows() {
    return 250_000;
  }
}
