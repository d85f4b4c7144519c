/**
 * OutboxKit's Jakarta Messaging (JMS 3) transport: {@link dev.outboxkit.jms.JmsTransport} publishes
 * outbox events through any provider's {@code ConnectionFactory}, and {@link
 * dev.outboxkit.jms.JmsEvents} reads them back on the consumer side.
 *
 * <p>{@code jakarta.messaging} is required (not {@code static}): although Maven scopes it {@code
 * provided} (the application or its container brings the provider's copy), the transport cannot run
 * without it, and its types appear in this module's API.
 */
module dev.outboxkit.jms {
  requires transitive dev.outboxkit.api;
  requires transitive jakarta.messaging;
  requires org.slf4j;

  exports dev.outboxkit.jms;
}
