package dev.outboxkit.samples.jta;

import dev.outboxkit.testkit.Flavor;

class AgroalPostgresJtaTest extends AgroalJtaContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
