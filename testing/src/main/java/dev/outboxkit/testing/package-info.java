/** Transports and helpers for testing code that uses OutboxKit. */
package dev.outboxkit.testing;
