/**
 * Plain-JDBC outbox: {@link dev.outboxkit.jdbc.Outbox#append} on the caller's connection, the
 * table's DDL ({@link dev.outboxkit.jdbc.OutboxSchema}), and the relay that publishes committed
 * events.
 */
package dev.outboxkit.jdbc;
