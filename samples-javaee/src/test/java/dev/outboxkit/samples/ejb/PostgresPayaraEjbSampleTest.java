package dev.outboxkit.samples.ejb;

import dev.outboxkit.testkit.Flavor;

class PostgresPayaraEjbSampleTest extends PayaraEjbSampleTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
