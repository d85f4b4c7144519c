package dev.outboxkit.samples.ejb;

import dev.outboxkit.testkit.Flavor;

class MariaDbEjbSampleTest extends EjbSampleContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
