/** Micrometer meters for OutboxKit relays and outbox tables; see {@link OutboxMetrics}. */
package dev.outboxkit.micrometer;
