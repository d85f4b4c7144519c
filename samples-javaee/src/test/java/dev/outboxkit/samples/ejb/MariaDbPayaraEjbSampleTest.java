package dev.outboxkit.samples.ejb;

import dev.outboxkit.testkit.Flavor;

class MariaDbPayaraEjbSampleTest extends PayaraEjbSampleTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
