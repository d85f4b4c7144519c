package dev.outboxkit.example.derby;

import dev.outboxkit.jdbc.dialect.ClaimCapability;
import dev.outboxkit.jdbc.dialect.DialectProvider;
import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.IdColumn;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import dev.outboxkit.jdbc.dialect.TimeColumn;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;

/**
 * An OutboxKit dialect for Apache Derby, written only against the public dialect SPI: this class
 * and the statement file {@code derby.sql} next to it are all there is. Derby has no {@code SKIP
 * LOCKED}, so relays claim with a candidate read and a conditional update ({@link
 * ClaimCapability#CONDITIONAL_UPDATE}).
 *
 * <pre>{@code
 * SqlDialect derby = DerbyDialect.create();
 * OutboxSchema.create(connection, "outbox_event", derby);
 * OutboxRelay relay = OutboxRelay.builder(dataSource, transport).dialect(derby).build();
 * }</pre>
 *
 * <p>It is also a {@link DialectProvider}, listed in {@code META-INF/services}, so components built
 * without a dialect detect it from a Derby connection.
 *
 * <p>Times: Derby's {@code CURRENT_TIMESTAMP} is the wall-clock time of the JVM the database runs
 * in, in that JVM's default time zone, and a {@code TIMESTAMP} column keeps no zone. So times are
 * bound as {@link java.sql.Timestamp}s ({@link TimeColumn#LOCAL_TIMESTAMP}), which the driver
 * converts the same way, and the relays must run in a JVM with the database's time zone (the
 * embedded database is in the same JVM). Leases and delays are wall-clock arithmetic: where the
 * zone has summer time, its switch moves them by the hour it skips or repeats. Run the database's
 * JVM in UTC ({@code -Duser.timezone=UTC}) to avoid that.
 *
 * <p>Locks: a statement waiting for a row lock fails after the database's {@code
 * derby.locks.waitTimeout} (60 seconds unless set), and Derby then rolls back the whole
 * transaction, as it does for the victim of a deadlock. OutboxKit's statement timeout cannot
 * shorten such a wait: Derby has no lock timeout per session, and a JDBC query timeout does not
 * interrupt a lock wait. Set {@code derby.locks.waitTimeout} to a few seconds. Ordered relays
 * deadlock now and then: a read of ordered candidates holds the lock of the row it is on while it
 * waits for an earlier event of that aggregate, which another relay is acknowledging in the
 * transaction that goes on to claim the row the read is on. Derby finds the cycle after {@code
 * derby.locks.deadlockTimeout} (20 seconds unless set; a second or two suits) and rolls one side
 * back, and the relay runs its transaction again.
 */
public final class DerbyDialect implements DialectProvider {
  /** What {@link DatabaseMetaData#getDatabaseProductName()} says, embedded or over the network. */
  private static final String PRODUCT_NAME = "Apache Derby";

  /** Derby's escape counts in an INTEGER: so whole days, then the seconds, then the nanoseconds. */
  private static final String MICROS = "CAST({micros} AS BIGINT)";

  private static final SqlDialect DERBY = create();

  /** For {@link java.util.ServiceLoader}; applications call {@link #create()}. */
  public DerbyDialect() {}

  /**
   * {@return the Derby dialect}
   *
   * <p>Call {@link SqlDialect#toBuilder(String)} on it to change a statement or the error codes.
   */
  public static SqlDialect create() {
    return SqlDialect.builder("Derby")
        .statementsFromResource(DerbyDialect.class, "derby.sql")
        .clock("CURRENT_TIMESTAMP", moved(""), moved("-"))
        .rowLimit("FETCH FIRST {n} ROWS ONLY")
        .oneRowTable("SYSIBM.SYSDUMMY1")
        .claim(ClaimCapability.CONDITIONAL_UPDATE)
        .ids(IdColumn.BYTES)
        .times(TimeColumn.LOCAL_TIMESTAMP)
        .errors(
            ErrorCodes.none()
                .sqlStates(ErrorCodes.Kind.DEADLOCK, "40001")
                // 40XL2 is the same timeout with the lock table appended
                // (derby.locks.deadlockTrace).
                .sqlStates(ErrorCodes.Kind.LOCK_TIMEOUT, "40XL1", "40XL2")
                .sqlStates(ErrorCodes.Kind.LOST_CONNECTION, "08001", "08003", "08004", "08006")
                .sqlStates(ErrorCodes.Kind.ALREADY_EXISTS, "X0Y32")
                // Two consumers inserting one inbox pair (or version row) at once: the loser's
                // statement fails, its transaction stays usable (see inboxInsert in derby.sql).
                .sqlStates(ErrorCodes.Kind.DUPLICATE_KEY, "23505"))
        .build();
  }

  /**
   * Recognises a Derby database, embedded or reached through the network client.
   *
   * @param metaData the connection's metadata
   * @return the Derby dialect, or null for another database
   * @throws SQLException if the metadata cannot be read
   */
  @Override
  public SqlDialect dialectFor(DatabaseMetaData metaData) throws SQLException {
    return PRODUCT_NAME.equals(metaData.getDatabaseProductName()) ? DERBY : null;
  }

  /**
   * {@code CURRENT_TIMESTAMP} moved by a number of microseconds. Derby has no interval type, only
   * the JDBC escape {@code TIMESTAMPADD}, which counts in an INTEGER: nanoseconds overflow it past
   * 2.1 seconds and seconds past 68 years. So the BIGINT is added as whole days, then the seconds
   * left over, then the nanoseconds left over.
   *
   * @param sign {@code ""} to move forward, {@code "-"} to move back
   */
  private static String moved(String sign) {
    return "{fn TIMESTAMPADD(SQL_TSI_FRAC_SECOND, CAST(MOD("
        + MICROS
        + ", 1000000) * "
        + sign
        + "1000 AS INTEGER), {fn TIMESTAMPADD(SQL_TSI_SECOND, CAST(MOD("
        + MICROS
        + ", 86400000000) / "
        + sign
        + "1000000 AS INTEGER), {fn TIMESTAMPADD(SQL_TSI_DAY, CAST("
        + MICROS
        + " / "
        + sign
        + "86400000000 AS INTEGER), CURRENT_TIMESTAMP)})})}";
  }
}
