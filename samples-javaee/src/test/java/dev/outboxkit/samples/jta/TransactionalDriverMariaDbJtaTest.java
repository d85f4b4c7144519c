package dev.outboxkit.samples.jta;

import dev.outboxkit.testkit.Flavor;

class TransactionalDriverMariaDbJtaTest extends TransactionalDriverJtaContractTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }

  @Override
  protected boolean libraryBorrowMayDoomTheCallersTransaction() {
    return true;
  }
}
