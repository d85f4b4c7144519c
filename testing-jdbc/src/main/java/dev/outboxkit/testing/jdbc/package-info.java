/**
 * The dialect contract kit: {@link dev.outboxkit.testing.jdbc.DialectContract}, JUnit 5 tests that
 * prove on your own database, with your dialect, what OutboxKit's guarantees rest on.
 */
package dev.outboxkit.testing.jdbc;
