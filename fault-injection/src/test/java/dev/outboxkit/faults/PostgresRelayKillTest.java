package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresRelayKillTest extends RelayKillTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
