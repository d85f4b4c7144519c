/** Internals of the Kafka transport. Not exported; may change in any release. */
package dev.outboxkit.kafka.internal;
