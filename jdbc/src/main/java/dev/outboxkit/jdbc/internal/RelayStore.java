package dev.outboxkit.jdbc.internal;

import dev.outboxkit.jdbc.dialect.ErrorCodes;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The relay's database side: its short transactions, acknowledgements, lease recovery and drain
 * counts (the claim is {@link Claimer}'s). Each call is one short transaction on a connection
 * borrowed from the data source; no transaction is ever open while the transport sends.
 */
final class RelayStore {

  /** Tries of one relay transaction chosen as a deadlock victim, before the error goes up. */
  static final int DEADLOCK_ATTEMPTS = 3;

  private final DataSource ds;
  private final TableName table;
  private final TimeBound bound;
  private final SqlResolver resolver;

  /**
   * @param ds where connections come from
   * @param table the outbox table
   * @param dialect the dialect, or null to detect it from the first connection
   * @param statementTimeout the time bound of each statement and of the idle time in between
   */
  public RelayStore(DataSource ds, TableName table, SqlDialect dialect, Duration statementTimeout) {
    this.ds = ds;
    this.table = table;
    this.resolver = SqlResolver.owned(dialect, table);
    this.bound = new TimeBound(statementTimeout, this::sql);
  }

  /** The time bound of the relay's transactions. */
  public TimeBound bound() {
    return bound;
  }

  /**
   * Whether a failure is a lock wait that ran out, by the dialect's codes (false before the dialect
   * is known): another transaction held rows of the table, or the table, for longer than the
   * statement timeout.
   */
  public boolean isLockTimeout(SQLException e) {
    OutboxSql s = resolver.known();
    return s != null && s.dialect().errors().is(ErrorCodes.Kind.LOCK_TIMEOUT, e);
  }

  /** The table, for messages. */
  public String table() {
    return table.qualified();
  }

  /**
   * The retention walk of this table on the relay's own threads, in the relay's time bound.
   *
   * @param window rows read per transaction
   * @param restPerWork the pause after each window, in multiples of the time the window took
   */
  public RetentionSweep retentionSweep(int window, int restPerWork) {
    return new RetentionSweep(ds, null, bound, this::sql, window, restPerWork);
  }

  OutboxSql sql(Connection c) throws SQLException {
    return resolver.sql(c);
  }

  /** The dialect's statements, learning the dialect on a connection of its own the first time. */
  OutboxSql sql() throws SQLException {
    OutboxSql s = resolver.known();
    if (s == null) {
      try (Connection c = ds.getConnection()) {
        s = sql(c);
      }
    }
    return s;
  }

  private <T> T inTransaction(Transactions.Work<T> work) throws SQLException {
    return inTransaction(null, work);
  }

  /**
   * Runs {@code work} in one short transaction, again (up to {@link #DEADLOCK_ATTEMPTS} times in
   * all) if the database chose it as a deadlock victim.
   *
   * @param claimPrelude the claim's statement to run first, or null: plan settings that fit one
   *     claim statement only
   */
  <T> T inTransaction(Statement claimPrelude, Transactions.Work<T> work) throws SQLException {
    OutboxSql s = sql(); // known before the transaction, so it starts the right way
    String before = s.optional(Statements.BEFORE_RELAY_TRANSACTION);
    String prelude = claimPrelude == null ? null : s.optional(claimPrelude);
    for (int attempt = 1; ; attempt++) {
      try {
        return Transactions.inTransaction(ds, bound, work, before, prelude);
      } catch (SQLException e) {
        // Relays claiming and reclaiming leases at once can deadlock on InnoDB's index locks; the
        // server rolled the victim back whole, so running the same work again is safe.
        if (attempt == DEADLOCK_ATTEMPTS || !isDeadlock(s, e)) {
          throw e;
        }
      }
    }
  }

  /**
   * A deadlock or serialization failure, by the dialect's error codes; not a lock wait that ran
   * out, though Connector/J reports MySQL's as a serialization failure too: running that again
   * would wait as long again, multiplying the time bound.
   */
  static boolean isDeadlock(OutboxSql s, SQLException e) {
    ErrorCodes codes = s == null ? null : s.dialect().errors();
    return codes != null
        && codes.is(ErrorCodes.Kind.DEADLOCK, e)
        && !codes.is(ErrorCodes.Kind.LOCK_TIMEOUT, e);
  }

  /** The acknowledgements of one claim, fenced by its lease owner. */
  public static final class OwnedAcks {
    final String owner;
    final List<Ack> acks;

    /**
     * @param owner the claim's lease owner (its token)
     * @param acks the outcomes to record under it
     */
    public OwnedAcks(String owner, List<Ack> acks) {
      this.owner = owner;
      this.acks = acks;
    }

    /** How many outcomes there are. */
    public int size() {
      return acks.size();
    }
  }

  /** What a drain still waits for: PENDING rows, as {@link Statements#DRAIN_LEFT} counts them. */
  public static final class DrainLeft {
    /** Every PENDING row. */
    public final long pending;

    /** PENDING rows behind an earlier DEAD row of their aggregate. */
    public final long behindDead;

    /** PENDING rows due within the time asked. */
    public final long due;

    /** PENDING rows due within the time asked and not behind a DEAD row. */
    public final long dueNotBehindDead;

    DrainLeft(long pending, long behindDead, long due, long dueNotBehindDead) {
      this.pending = pending;
      this.behindDead = behindDead;
      this.due = due;
      this.dueNotBehindDead = dueNotBehindDead;
    }
  }

  /**
   * Counts what a drain still waits for, by the database clock, in one short read.
   *
   * @param within how far ahead a PENDING row counts as due
   */
  public DrainLeft drainLeft(Duration within) throws SQLException {
    return inTransaction(
        c -> {
          OutboxSql s = sql(c);
          try (Query q = Query.prepare(c, s, Statements.DRAIN_LEFT)) {
            q.setLong("within", Micros.of(within));
            try (ResultSet rs = q.executeQuery()) {
              rs.next();
              return new DrainLeft(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
            }
          }
        });
  }

  /** What {@link #reclaimExpiredLeases} did. */
  public static final class Reclaimed {
    /** Rows handed back to PENDING. */
    public final int pending;

    /** Rows quarantined as DEAD for losing too many leases. */
    public final int dead;

    /** Whether every expired lease was read, not only those of the window asked for. */
    public final boolean everyLease;

    Reclaimed(int pending, int dead, boolean everyLease) {
      this.pending = pending;
      this.dead = dead;
      this.everyLease = everyLease;
    }
  }

  /**
   * Hands IN_FLIGHT rows whose lease ran out (by the database clock) back to PENDING, without
   * charging an attempt: the relay that held them may have delivered them and stalled before its
   * acknowledgement. The loss is counted apart, and a row that lost {@code maxLosses} leases
   * becomes DEAD instead — most likely it is what kills or hangs the relays that take it.
   *
   * @param windowMicros read only the leases that ran out within this many microseconds, where the
   *     dialect's statements take a window; 0 for every expired lease
   */
  public Reclaimed reclaimExpiredLeases(int maxLosses, long windowMicros) throws SQLException {
    long window = windowMicros > 0 ? windowMicros : RecoveryWindow.EVERY_LEASE_MICROS;
    return inTransaction(
        c -> {
          OutboxSql s = sql(c);
          int dead;
          boolean windowed; // whether either statement read only the window
          try (Query q = Query.prepare(c, s, Statements.QUARANTINE_LOST_LEASES)) {
            q.setString(
                "error",
                "lease expired "
                    + maxLosses
                    + " times without an outcome: every relay that took it died or stalled while"
                    + " sending it (a message that crashes or hangs the sender?)");
            q.setInt("max_losses", maxLosses);
            windowed = q.takes("window");
            dead = q.setLong("window", window).executeUpdate();
          }
          try (Query q = Query.prepare(c, s, Statements.RECLAIM_EXPIRED_LEASES)) {
            windowed |= q.takes("window");
            int pending = q.setLong("window", window).executeUpdate();
            return new Reclaimed(pending, dead, windowMicros <= 0 || !windowed);
          }
        });
  }

  /**
   * Records the outcomes of one or more claims in one transaction. Every update is fenced by its
   * claim's lease owner: rows whose lease was lost (expired and taken over) are left alone.
   *
   * @param deleteDelivered delete delivered rows instead of marking them PUBLISHED
   * @return how many rows were actually updated; fewer than the outcomes given means leases lost
   */
  public int acknowledge(List<OwnedAcks> parts, boolean deleteDelivered) throws SQLException {
    return inTransaction(c -> record(c, parts, deleteDelivered));
  }

  /** Every part's statements, in the caller's transaction; returns rows updated. */
  int record(Connection c, List<OwnedAcks> parts, boolean deleteDelivered) throws SQLException {
    int updated = 0;
    for (OwnedAcks part : parts) {
      if (!part.acks.isEmpty()) {
        updated += record(c, part.owner, byKind(part.acks), deleteDelivered);
      }
    }
    return updated;
  }

  private static Map<Ack.Kind, List<Ack>> byKind(List<Ack> acks) {
    Map<Ack.Kind, List<Ack>> byKind = new EnumMap<>(Ack.Kind.class);
    for (Ack ack : acks) {
      byKind.computeIfAbsent(ack.kind(), k -> new ArrayList<>()).add(ack);
    }
    return byKind;
  }

  /** The statements of an acknowledgement, in the caller's transaction; returns rows updated. */
  private int record(
      Connection c, String owner, Map<Ack.Kind, List<Ack>> byKind, boolean deleteDelivered)
      throws SQLException {
    OutboxSql s = sql(c);
    int updated = 0;
    updated +=
        updateSeqs(
            c,
            s,
            deleteDelivered ? Statements.DELETE_PUBLISHED : Statements.MARK_PUBLISHED,
            owner,
            byKind.get(Ack.Kind.PUBLISHED));
    updated += updateSeqs(c, s, Statements.MARK_EXPIRED, owner, byKind.get(Ack.Kind.EXPIRED));
    updated += updateSeqs(c, s, Statements.RELEASE, owner, byKind.get(Ack.Kind.RELEASE));
    updated += updateRetries(c, s, owner, byKind.get(Ack.Kind.RETRY));
    updated += updateDead(c, s, owner, byKind.get(Ack.Kind.DEAD));
    updated += updateHolds(c, s, owner, byKind.get(Ack.Kind.HOLD));
    return updated;
  }

  private static int updateSeqs(
      Connection c, OutboxSql s, Statement st, String owner, List<Ack> acks) throws SQLException {
    if (acks == null) {
      return 0;
    }
    int updated = 0;
    for (int from = 0; from < acks.size(); from += Query.MAX_LIST) {
      List<Ack> chunk = acks.subList(from, Math.min(acks.size(), from + Query.MAX_LIST));
      try (Query q = Query.prepare(c, s, st, chunk.size())) {
        updated += q.setString("owner", owner).setSeqs("seqs", seqs(chunk)).executeUpdate();
      }
    }
    return updated;
  }

  private static List<Long> seqs(List<Ack> acks) {
    List<Long> seqs = new ArrayList<>(acks.size());
    for (Ack ack : acks) {
      seqs.add(ack.seq());
    }
    return seqs;
  }

  private static int updateRetries(Connection c, OutboxSql s, String owner, List<Ack> acks)
      throws SQLException {
    if (acks == null) {
      return 0;
    }
    try (Query q = Query.prepare(c, s, Statements.MARK_RETRY)) {
      for (Ack ack : acks) {
        q.setLong("delay", ack.delayMicros())
            .setInt("charge", ack.charged() ? 1 : 0)
            .setInt("uncertain", ack.uncertain() ? 1 : 0)
            .setString("error", ack.error())
            .setLong("seq", ack.seq())
            .setString("owner", owner)
            .addBatch();
      }
      return sum(q.executeBatch());
    }
  }

  /** Holds grouped by delay and error: one statement (per chunk) for each group. */
  private static int updateHolds(Connection c, OutboxSql s, String owner, List<Ack> acks)
      throws SQLException {
    if (acks == null) {
      return 0;
    }
    Map<List<Object>, List<Ack>> groups = new LinkedHashMap<>();
    for (Ack ack : acks) {
      groups
          .computeIfAbsent(Arrays.asList(ack.delayMicros(), ack.error()), k -> new ArrayList<>())
          .add(ack);
    }
    int updated = 0;
    for (List<Ack> group : groups.values()) {
      for (int from = 0; from < group.size(); from += Query.MAX_LIST) {
        List<Ack> chunk = group.subList(from, Math.min(group.size(), from + Query.MAX_LIST));
        try (Query q = Query.prepare(c, s, Statements.MARK_HELD, chunk.size())) {
          updated +=
              q.setLong("delay", chunk.get(0).delayMicros())
                  .setString("error", chunk.get(0).error())
                  .setString("owner", owner)
                  .setSeqs("seqs", seqs(chunk))
                  .executeUpdate();
        }
      }
    }
    return updated;
  }

  private static int updateDead(Connection c, OutboxSql s, String owner, List<Ack> acks)
      throws SQLException {
    if (acks == null) {
      return 0;
    }
    try (Query q = Query.prepare(c, s, Statements.MARK_DEAD)) {
      for (Ack ack : acks) {
        q.setString("error", ack.error())
            .setInt("uncertain", ack.uncertain() ? 1 : 0)
            .setLong("seq", ack.seq())
            .setString("owner", owner)
            .addBatch();
      }
      return sum(q.executeBatch());
    }
  }

  private static int sum(int[] counts) {
    int total = 0;
    for (int n : counts) {
      // SUCCESS_NO_INFO (-2): the driver did not say; count it as done.
      total += n == PreparedStatement.SUCCESS_NO_INFO ? 1 : Math.max(n, 0);
    }
    return total;
  }
}
