package dev.outboxkit.samples.ejb;

import dev.outboxkit.testkit.Flavor;

class PostgresEjbSampleTest extends EjbSampleContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
