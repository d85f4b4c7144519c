/**
 * OutboxKit's Kafka transport: {@link dev.outboxkit.kafka.KafkaTransport} publishes outbox events
 * with an idempotent producer, and {@link dev.outboxkit.kafka.KafkaEvents} reads the event id and
 * type back on the consumer side.
 */
module dev.outboxkit.kafka {
  requires transitive dev.outboxkit.api;
  requires transitive kafka.clients;
  requires org.slf4j;

  exports dev.outboxkit.kafka;
}
