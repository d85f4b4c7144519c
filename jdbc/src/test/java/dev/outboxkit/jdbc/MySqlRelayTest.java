package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class MySqlRelayTest extends RelayContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }

  /**
   * A quarter of the load. Without PostgreSQL's loose index scan the ordered claim reads every
   * PENDING row to find the aggregates' heads, and the embedded MySQL 8.0.15 took 6 minutes for the
   * full 10,000 events (its limit); 2,500 events still interleave 50 aggregates across three relays
   * with retries, which is what the test is about. MariaDB runs the full load.
   */
  @Override
  protected int orderedEventsPerAggregate() {
    return 50;
  }
}
