/**
 * Change data capture on OutboxKit's outbox table: {@link
 * dev.outboxkit.debezium.OutboxEventRouter}, a Kafka Connect transformation for Debezium's
 * connectors that publishes the records {@code KafkaTransport} would.
 */
package dev.outboxkit.debezium;
