/** Test helpers for applications that use OutboxKit. */
module dev.outboxkit.testing {
  requires transitive dev.outboxkit.api;
  requires static org.junit.jupiter.api;

  exports dev.outboxkit.testing;
}
