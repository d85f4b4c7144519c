package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class MariaDbCommitCrashTest extends CommitCrashTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MARIADB;
  }
}
