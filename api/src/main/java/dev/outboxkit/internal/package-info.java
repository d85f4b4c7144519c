/**
 * Internals of OutboxKit: event validation shared by the API's builders, and what the relay and the
 * transports share (the threads they make, the answers before sending, the routing precedence, the
 * tally of a batch). Not API: nothing here is supported for use outside OutboxKit's own modules,
 * and it changes without notice. The module descriptor exports it only to those modules.
 */
package dev.outboxkit.internal;
