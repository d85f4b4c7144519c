package dev.outboxkit.testing.jdbc;

import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.testkit.Flavor;

/** The dialect contract kit on H2 in memory, with the H2 preset. */
class H2DialectContractTest extends FlavorDialectContract {
  H2DialectContractTest() {
    super(Flavor.H2, Dialect.H2.preset());
  }

  /** H2 has no per-transaction time bound: its own lock timeout ends lock waits, not the relay. */
  @Override
  protected boolean boundsStatementTime() {
    return false;
  }
}
