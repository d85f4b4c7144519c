package dev.outboxkit.jdbc;

import dev.outboxkit.testkit.Flavor;

class H2RetentionTest extends RetentionContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.H2;
  }

  /** In-memory H2, a development dialect: a fifth of the rows keeps the build's heap small. */
  @Override
  protected int largeTableRows() {
    return 200_000;
  }
}
