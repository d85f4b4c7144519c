/**
 * Publishing outbox events to Apache Kafka: {@link dev.outboxkit.kafka.KafkaTransport} on the
 * producing side, {@link dev.outboxkit.kafka.KafkaEvents} (header names and readers) on the
 * consuming side.
 */
package dev.outboxkit.kafka;
