/** The dialect contract kit: OutboxKit's guarantees proved on your own database. */
module dev.outboxkit.testing.jdbc {
  requires transitive dev.outboxkit.jdbc;
  requires transitive dev.outboxkit.testing;
  requires transitive org.junit.jupiter.api;

  exports dev.outboxkit.testing.jdbc;

  // JUnit calls the kit's package-private lifecycle and test methods reflectively.
  opens dev.outboxkit.testing.jdbc to
      org.junit.platform.commons;
}
