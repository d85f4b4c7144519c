package dev.outboxkit.samples.jta;

import dev.outboxkit.testkit.Flavor;

class AgroalMariaDbJtaTest extends AgroalJtaContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
