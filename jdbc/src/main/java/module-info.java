/** Plain-JDBC outbox: append, schema, relay, admin. Bring your own JDBC driver. */
module dev.outboxkit.jdbc {
  requires transitive dev.outboxkit.api;
  requires transitive java.sql;
  requires org.slf4j;
  requires static org.postgresql.jdbc;

  exports dev.outboxkit.jdbc;
  exports dev.outboxkit.jdbc.dialect;

  uses dev.outboxkit.jdbc.dialect.DialectProvider;
}
