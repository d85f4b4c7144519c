package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * H2 2.x, for development and tests. Claims like MySQL (candidates, locking re-check, update), with
 * {@code CURRENT_TIMESTAMP} as the clock.
 */
final class H2Dialect extends SqlDialect {
  /** The statements of {@code dev/outboxkit/jdbc/sql/h2.sql} over {@code common.sql}. */
  public H2Dialect() {
    super("h2.sql");
  }

  @Override
  public String name() {
    return "H2";
  }

  @Override
  public String schemaResource() {
    return "h2.sql";
  }

  @Override
  public boolean claimsInOneStatement() {
    return false;
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
    return "inbox-h2.sql";
  }
}
