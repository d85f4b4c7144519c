package dev.outboxkit.jdbc.internal;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.UUID;

/**
 * MySQL 8.0+. Times are DATETIME(6) holding UTC, compared with {@code UTC_TIMESTAMP(6)}, bound as
 * text and read as {@link LocalDateTime}: Connector/J shifts neither by a time zone. Text, because
 * Connector/J drops the fractional seconds of temporal parameters when the server reports a version
 * below 5.6.4 — which MariaDB does ({@code 5.5.5-10.11.x-MariaDB}).
 *
 * <p>There is no {@code UPDATE … RETURNING}, and a locking read locks the rows of its subqueries
 * too (with SKIP LOCKED it would even skip them), so claims run as: a plain read of candidates, a
 * {@code FOR UPDATE SKIP LOCKED} read that re-checks them, and an update ({@link SteppedClaim}).
 *
 * <p>Every "first live rows in seq order" read says {@code IGNORE INDEX FOR ORDER BY (PRIMARY)}.
 * Without it, once live rows are more than a sliver of the table, the optimizer walks the primary
 * key in seq order expecting to meet them evenly spread; they all sit at its end, after the whole
 * PUBLISHED history, so each claim read every finished row (2 s per claim with 1,000,000). The hint
 * leaves the {@code (status, seq)} index, which yields live rows in seq order, and names no index
 * of ours, so renamed indexes in a user's copy of the DDL still work.
 */
class MySqlDialect extends SqlDialect {
  private static final DateTimeFormatter DATETIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd HH:mm:ss.SSSSSS");
  static final SqlClock CLOCK =
      new SqlClock(
          "UTC_TIMESTAMP(6)",
          "TIMESTAMPADD(MICROSECOND, ?, UTC_TIMESTAMP(6))",
          "TIMESTAMPADD(MICROSECOND, -?, UTC_TIMESTAMP(6))");

  /** The MySQL dialect; MariaDB shares its statements. */
  MySqlDialect() {
    super("MySQL", CLOCK, "mysql.sql", SteppedClaim::new, "mysql.sql");
  }

  /** A variant of MySQL: its statements layered over MySQL's, its DDL MySQL's. */
  MySqlDialect(String name, String variantFile) {
    super(name, CLOCK, "mysql.sql", SteppedClaim::new, "mysql.sql", variantFile);
  }

  @Override
  public void setUuid(PreparedStatement ps, int index, UUID id) throws SQLException {
    ps.setString(index, id.toString());
  }

  @Override
  public UUID getUuid(ResultSet rs, String column) throws SQLException {
    String id = rs.getString(column);
    return id == null ? null : UUID.fromString(id);
  }

  @Override
  public void setInstant(PreparedStatement ps, int index, Instant instant) throws SQLException {
    if (instant == null) {
      ps.setNull(index, Types.TIMESTAMP);
    } else {
      ps.setString(index, DATETIME.format(LocalDateTime.ofInstant(instant, ZoneOffset.UTC)));
    }
  }

  @Override
  public Instant getInstant(ResultSet rs, String column) throws SQLException {
    LocalDateTime t = rs.getObject(column, LocalDateTime.class);
    return t == null ? null : t.toInstant(ZoneOffset.UTC);
  }
}
