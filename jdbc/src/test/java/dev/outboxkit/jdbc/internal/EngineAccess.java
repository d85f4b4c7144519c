package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The engine's package-private parts that tests in other packages and modules drive directly: a
 * relay that claims and then dies, lease recovery, the row reader, the notification listener, a
 * statement's text, the headers column's codec. Test code only (shipped in jdbc's test jar for
 * other modules' tests); the engine stays package-private.
 */
public final class EngineAccess {
  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(10);

  private EngineAccess() {}

  /**
   * Claims as a relay would, then leaves the rows IN_FLIGHT: a relay that died after its claim.
   *
   * @return how many events it claimed
   */
  public static int claim(DataSource ds, String owner, int limit, boolean ordered, Duration lease)
      throws SQLException {
    return claimer(ds, ordered, lease).claim(owner, limit).size();
  }

  private static Claimer claimer(DataSource ds, boolean ordered, Duration lease) {
    RelaySettings settings =
        new RelaySettings(
            "test",
            100,
            ordered,
            lease,
            Duration.ZERO,
            10,
            5,
            false,
            Duration.ofHours(24),
            false,
            Clock.systemUTC());
    return new Claimer(settings, store(ds, null), "test");
  }

  private static RelayStore store(DataSource ds, SqlDialect dialect) {
    return new RelayStore(ds, TableName.of(TableName.DEFAULT), dialect, STATEMENT_TIMEOUT);
  }

  /** What a lease recovery did. */
  public static final class Reclaimed {
    /** Rows handed back to PENDING. */
    public final int pending;

    /** Rows quarantined as DEAD for losing too many leases. */
    public final int dead;

    Reclaimed(RelayStore.Reclaimed r) {
      this.pending = r.pending;
      this.dead = r.dead;
    }
  }

  /** Hands IN_FLIGHT rows whose lease ran out back to PENDING, as every relay does now and then. */
  public static Reclaimed reclaimExpiredLeases(DataSource ds, int maxLosses) throws SQLException {
    return reclaimExpiredLeases(ds, maxLosses, Duration.ZERO);
  }

  /** As {@link #reclaimExpiredLeases(DataSource, int)}, only leases that ran out within window. */
  public static Reclaimed reclaimExpiredLeases(DataSource ds, int maxLosses, Duration window)
      throws SQLException {
    return new Reclaimed(store(ds, null).reclaimExpiredLeases(maxLosses, Micros.of(window)));
  }

  /** {@return the event columns the claim statements return, as EventRows reads them} */
  public static String eventColumns() {
    return EventRows.readColumns(null);
  }

  /** Reads the event of the current row, as a claim does. */
  public static OutboxEvent readEvent(ResultSet rs, CompiledDialect dialect) throws SQLException {
    return EventRows.read(rs, dialect);
  }

  /**
   * Starts the PostgreSQL notification listener of a relay on a thread of its own.
   *
   * @return stops it and waits for its thread
   */
  public static AutoCloseable listenForNotifications(DataSource ds, String channel, Runnable wake) {
    NotificationListener listener = new NotificationListener(ds, channel, "test", wake);
    Thread t = new Thread(listener);
    t.start();
    return () -> {
      listener.stop();
      t.join(5000);
    };
  }

  /**
   * {@return the SQL a statement runs on this table in this dialect}
   *
   * @param statement the statement's name in the statement files, e.g. {@code snapshot}
   */
  public static String statementText(SqlDialect dialect, String table, String statement) {
    Statement st = Statements.ALL.get(statement);
    if (st == null) {
      throw new IllegalArgumentException("no statement " + statement);
    }
    return OutboxSql.of(dialect, TableName.of(table)).text(st);
  }

  /** {@return the headers column's text for these headers, as an append writes it} */
  public static String encodeHeaders(Map<String, String> headers) {
    return HeadersCodec.encode(headers);
  }

  /** {@return the headers a headers column holds, as a claim reads them} */
  public static Map<String, String> decodeHeaders(String column) {
    return HeadersCodec.decode(column);
  }
}
