/**
 * The dialect SPI: how OutboxKit speaks to one database product. The shipped databases are presets
 * ({@link dev.outboxkit.jdbc.Dialect#preset()}); a {@link dev.outboxkit.jdbc.dialect.SqlDialect}
 * built from one of them, or from scratch, describes any other: its statements (overridable one by
 * one, their parameters named so an override cannot bind them in another order), its clock, its
 * claim capability, its column types and its error codes. The {@code outboxkit-testing-jdbc}
 * module's {@code DialectContract} proves a dialect on a real database.
 *
 * <p>Everything here is {@link dev.outboxkit.jdbc.dialect.Beta}: public, supported, and not yet
 * frozen.
 */
@Beta
package dev.outboxkit.jdbc.dialect;
