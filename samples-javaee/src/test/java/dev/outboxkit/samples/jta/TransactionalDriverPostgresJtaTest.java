package dev.outboxkit.samples.jta;

import dev.outboxkit.testkit.Flavor;

class TransactionalDriverPostgresJtaTest extends TransactionalDriverJtaContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
