/**
 * Publishing outbox events to a JMS provider through the {@code jakarta.jms} API: {@link
 * dev.outboxkit.jms.JmsTransport} on the producing side, {@link dev.outboxkit.jms.JmsDestination}
 * for routing, and {@link dev.outboxkit.jms.JmsEvents} (property names and readers) on the
 * consuming side.
 *
 * <p>Two artifacts ship this package, built from one source: {@code outboxkit-transport-jms} for
 * the Jakarta Messaging API (Jakarta EE 9 and later) and {@code outboxkit-transport-jms-javax} for
 * the older javax API (up to Java EE 8 and Jakarta EE 8; JMS 1.1 providers included). They have the
 * same class names, so put exactly one of them on a classpath; moving an application from one to
 * the other changes only the dependency and its own JMS imports.
 */
package dev.outboxkit.jms;
