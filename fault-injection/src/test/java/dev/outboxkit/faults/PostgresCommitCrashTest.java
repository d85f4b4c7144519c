package dev.outboxkit.faults;

import dev.outboxkit.testkit.Flavor;

class PostgresCommitCrashTest extends CommitCrashTest {
  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }
}
