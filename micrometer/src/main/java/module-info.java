/**
 * Micrometer meters for OutboxKit: {@code OutboxMetrics} is a relay listener that counts outcomes
 * and times lag and batches, and registers backlog gauges fed by a cached outbox snapshot.
 */
module dev.outboxkit.micrometer {
  requires transitive dev.outboxkit.jdbc;
  requires transitive micrometer.core;
  requires org.slf4j;

  exports dev.outboxkit.micrometer;
}
