package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** PostgreSQL 12+: partial indexes, {@code UPDATE … RETURNING}, {@code now()} as the clock. */
final class PostgresDialect extends SqlDialect {
  /** The statements of {@code dev/outboxkit/jdbc/sql/postgresql.sql} over {@code common.sql}. */
  public PostgresDialect() {
    super("postgresql.sql");
  }

  @Override
  public String name() {
    return "PostgreSQL";
  }

  @Override
  public String schemaResource() {
    return "postgresql.sql";
  }

  @Override
  public boolean claimsInOneStatement() {
    return true;
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    if (instant == null) {
      ps.setNull(index, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      ps.setObject(index, instant.atOffset(ZoneOffset.UTC));
    }
  }

  @Override
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  @Override
  public String inboxSchemaResource() {
    return "inbox-postgresql.sql";
  }
}
