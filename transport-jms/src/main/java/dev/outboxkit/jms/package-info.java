/**
 * Publishing outbox events to a Jakarta Messaging (JMS) provider: {@link
 * dev.outboxkit.jms.JmsTransport} on the producing side, {@link dev.outboxkit.jms.JmsDestination}
 * for routing, and {@link dev.outboxkit.jms.JmsEvents} (property names and readers) on the
 * consuming side.
 */
package dev.outboxkit.jms;
