package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The relay's database side: claim, acknowledge, recover leases. Each call is one short transaction
 * on a connection borrowed from the data source; no transaction is ever open while the transport
 * sends.
 */
public final class RelayStore {
  /** Largest IN list in one statement; longer lists are split. */
  private static final int MAX_IN_LIST = 1000;

  /** Most heads whose runs one ordered claim extends: one {@code UNION ALL} part each. */
  static final int MAX_RUN_HEADS = 100;

  /** Tries of one relay transaction chosen as a deadlock victim, before the error goes up. */
  static final int DEADLOCK_ATTEMPTS = 3;

  private final DataSource ds;
  private final TableName table;
  private final TimeBound bound;
  private final SqlResolver resolver;

  /**
   * Set when the last ordered claim came back short, i.e. its scan found fewer claimable heads than
   * the limit and so read every pending event: then the sparse claim, whose cost is bounded by the
   * number of aggregates (never more than the pending events), is the cheaper one, until a claim
   * fills up again.
   */
  private volatile boolean headsScarce;

  /**
   * @param ds where connections come from
   * @param table the outbox table
   * @param dialect the dialect, or null to detect it from the first connection
   * @param statementTimeout the time bound of each statement and of the idle time in between
   */
  public RelayStore(DataSource ds, TableName table, Dialect dialect, Duration statementTimeout) {
    this.ds = ds;
    this.table = table;
    this.resolver = SqlResolver.owned(dialect, table);
    this.bound = new TimeBound(statementTimeout, c -> sql(c).dialect());
  }

  /** The time bound of the relay's transactions. */
  public TimeBound bound() {
    return bound;
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

  private OutboxSql sql(Connection c) throws SQLException {
    return resolver.sql(c);
  }

  private <T> T inTransaction(Transactions.Work<T> work) throws SQLException {
    return inTransaction((Claim) null, work);
  }

  /** Which claim a transaction runs, for its preludes; null for other transactions. */
  private enum Claim {
    PLAIN,
    SPARSE
  }

  private <T> T inTransaction(Claim claim, Transactions.Work<T> work) throws SQLException {
    OutboxSql s = resolver.known();
    if (s == null) {
      // First call: learn the dialect, so the transaction starts the right way.
      try (Connection c = ds.getConnection()) {
        s = sql(c);
      }
    }
    SqlDialect d = s.dialect();
    for (int attempt = 1; ; attempt++) {
      try {
        // The plan pins of beforeClaim fit the plain claim's scan; the sparse claim plans freely.
        return Transactions.inTransaction(
            ds,
            bound,
            work,
            d.beforeRelayTransaction(),
            claim == Claim.PLAIN ? d.beforeClaim() : null);
      } catch (SQLException e) {
        // Relays claiming and reclaiming leases at once can deadlock on InnoDB's index locks; the
        // server rolled the victim back whole, so running the same work again is safe.
        if (attempt == DEADLOCK_ATTEMPTS || !isDeadlock(e)) {
          throw e;
        }
      }
    }
  }

  /** A deadlock or serialization failure (MySQL/MariaDB 1213 and PostgreSQL use these states). */
  static boolean isDeadlock(SQLException e) {
    String state = e.getSQLState();
    return "40001".equals(state) || "40P01".equals(state);
  }

  /**
   * Claims up to {@code limit} events for {@code owner}, in seq order.
   *
   * <p>Ordered mode claims the head of each aggregate (its first unfinished event) and, while the
   * heads leave room in the batch, runs: each head's due PENDING successors, up to the aggregate's
   * first event that is not (IN_FLIGHT, DEAD, or not due yet), at most an even share of the room
   * per aggregate. Holding the head keeps every other relay off the run, since each of its events
   * is blocked by the head.
   *
   * @param ordered claim heads and their runs only
   */
  public List<ClaimedEvent> claim(String owner, int limit, boolean ordered, Duration lease)
      throws SQLException {
    return acknowledgeThenClaim(List.of(), false, owner, limit, ordered, lease).claimed;
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

  /** What {@link #acknowledgeThenClaim} did. */
  public static final class AckAndClaim {
    /** Rows the acknowledgement updated; fewer than its acks means leases lost. */
    public final int updated;

    /** The events claimed after it, in seq order; empty if none were claimable. */
    public final List<ClaimedEvent> claimed;

    AckAndClaim(int updated, List<ClaimedEvent> claimed) {
      this.updated = updated;
      this.claimed = claimed;
    }
  }

  /**
   * Records outcomes (of one or more batches) and claims the next batch in the same transaction:
   * one commit (on MySQL and MariaDB one InnoDB log flush) and one round trip fewer than {@link
   * #acknowledge} then {@link #claim}. The claim sees the acknowledgement: in ordered mode the
   * successors of the events it made PUBLISHED are claimable in it. If either part fails, neither
   * happened.
   *
   * @param parts the outcomes to record, each under its claim's token; empty records nothing
   */
  public AckAndClaim acknowledgeThenClaim(
      List<OwnedAcks> parts,
      boolean deleteDelivered,
      String owner,
      int limit,
      boolean ordered,
      Duration lease)
      throws SQLException {
    boolean runs = ordered;
    while (true) {
      boolean withRuns = runs;
      boolean sparse =
          ordered
              && headsScarce
              && resolver.known() != null
              && resolver.known().dialect().claimOrderedSparse() != null;
      int[] heads = new int[1];
      // Cleared by a claim that saw every due PENDING row, all of them heads: no run to look for.
      boolean[] runsPossible = {true};
      try {
        AckAndClaim result =
            inTransaction(
                sparse ? Claim.SPARSE : Claim.PLAIN,
                c -> {
                  int updated = record(c, parts, deleteDelivered);
                  OutboxSql s = sql(c);
                  List<ClaimedEvent> claimed =
                      s.dialect().claimsInOneStatement()
                          ? claimInOneStatement(
                              c, s, owner, limit, ordered, sparse, lease, runsPossible)
                          : claimInSteps(c, s, owner, limit, ordered, lease, runsPossible);
                  heads[0] = claimed.size();
                  if (withRuns && runsPossible[0] && !claimed.isEmpty() && claimed.size() < limit) {
                    claimed.addAll(claimRuns(c, s, owner, claimed, limit - claimed.size(), lease));
                  }
                  claimed.sort(Comparator.comparingLong(ClaimedEvent::seq));
                  return new AckAndClaim(updated, claimed);
                });
        if (ordered) {
          headsScarce = heads[0] < limit;
        }
        return result;
      } catch (RunConflict e) {
        // A run's row changed between reading and marking it (an append committed out of seq
        // order on a hot aggregate, say): the whole transaction was rolled back; claim the heads
        // alone.
        runs = false;
      }
    }
  }

  /**
   * Claims the runs behind the given heads, which this transaction holds: reads each head's
   * successors (one {@code UNION ALL} part per head, each bounded), keeps each aggregate's due
   * prefix, the earliest {@code room} of them in all, and marks them IN_FLIGHT.
   *
   * @throws RunConflict if a row read was no longer PENDING when marked
   */
  private static List<ClaimedEvent> claimRuns(
      Connection c, OutboxSql s, String owner, List<ClaimedEvent> heads, int room, Duration lease)
      throws SQLException {
    List<ClaimedEvent> leaders = heads.subList(0, Math.min(heads.size(), MAX_RUN_HEADS));
    int perHead = (room + leaders.size() - 1) / leaders.size();
    String part = s.sql(s.dialect().runSuccessors());
    StringBuilder union = new StringBuilder(part.length() * leaders.size());
    for (int i = 0; i < leaders.size(); i++) {
      union.append(i == 0 ? "" : "\nUNION ALL\n").append(part);
    }
    List<ClaimedEvent> run = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(union.toString())) {
      int p = 1;
      for (ClaimedEvent head : leaders) {
        ps.setString(p++, head.aggregateType());
        ps.setString(p++, head.aggregateId());
        ps.setLong(p++, head.seq());
        ps.setLong(p++, head.seq());
        ps.setLong(p++, head.seq());
        ps.setInt(p++, perHead);
      }
      try (ResultSet rs = ps.executeQuery()) {
        Set<String> cut = new HashSet<>();
        while (rs.next()) {
          ClaimedEvent e = readOne(rs, s.dialect());
          if (cut.contains(e.aggregate())) {
            continue;
          }
          if (!rs.getBoolean("due")) {
            cut.add(e.aggregate()); // not due yet: the run ends before it
            continue;
          }
          run.add(e);
        }
      }
    }
    if (run.isEmpty()) {
      return run;
    }
    // Each aggregate's rows are a prefix of its run, so the earliest rows overall keep that.
    run.sort(Comparator.comparingLong(ClaimedEvent::seq));
    List<ClaimedEvent> taken = new ArrayList<>(run.subList(0, Math.min(room, run.size())));
    try (PreparedStatement ps =
        c.prepareStatement(s.sql(s.dialect().markClaimed(), taken.size()))) {
      ps.setString(1, owner);
      ps.setLong(2, lease.toMillis());
      int i = 3;
      for (ClaimedEvent e : taken) {
        ps.setLong(i++, e.seq());
      }
      if (ps.executeUpdate() != taken.size()) {
        throw new RunConflict();
      }
    }
    return taken;
  }

  /** A run changed under the claim; the claim's transaction rolls back. */
  private static final class RunConflict extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RunConflict() {
      super("a run's row changed while it was claimed", null, false, false);
    }
  }

  private static List<ClaimedEvent> claimInOneStatement(
      Connection c,
      OutboxSql s,
      String owner,
      int limit,
      boolean ordered,
      boolean sparse,
      Duration lease,
      boolean[] runsPossible)
      throws SQLException {
    String template =
        !ordered
            ? s.dialect().claimUnordered()
            : sparse ? s.dialect().claimOrderedSparse() : s.dialect().claimOrdered();
    try (PreparedStatement ps = c.prepareStatement(s.sql(template))) {
      ps.setString(1, owner);
      ps.setLong(2, lease.toMillis());
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        List<ClaimedEvent> claimed = new ArrayList<>();
        boolean successors = false;
        while (rs.next()) {
          claimed.add(readOne(rs, s.dialect()));
          successors = successors || (ordered && rs.getBoolean("has_successor"));
        }
        // No head claimed has a PENDING successor: there is no run to look for.
        runsPossible[0] = successors;
        return claimed;
      }
    }
  }

  /**
   * @param runsPossible set to false when the ordered claim saw that no due PENDING row but the
   *     heads exists
   */
  private static List<ClaimedEvent> claimInSteps(
      Connection c,
      OutboxSql s,
      String owner,
      int limit,
      boolean ordered,
      Duration lease,
      boolean[] runsPossible)
      throws SQLException {
    List<ClaimedEvent> claimed;
    if (ordered) {
      // First the heads among the first PENDING rows (a bounded read, however deep the backlog:
      // with a hot aggregate the window holds its head, and its run fills the batch); only when
      // that claims nothing from a full window, the read of every PENDING row until enough heads
      // are found.
      // Twice the batch of candidates: those other relays lock meanwhile are skipped, not waited
      // on.
      SqlDialect d = s.dialect();
      List<Long> heads = new ArrayList<>();
      int others = 0;
      int read = 0;
      try (PreparedStatement ps = c.prepareStatement(s.sql(d.orderedCandidatesInWindow()))) {
        ps.setInt(1, limit);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            read++;
            if (rs.getInt("head") == 0) {
              others++;
            } else if (heads.size() < 2 * limit) {
              heads.add(rs.getLong("seq"));
            }
          }
        }
      }
      // The window held every due PENDING row, and each was a head: nothing runs behind them.
      runsPossible[0] = others > 0 || read >= limit;
      claimed = lockHeads(c, s, heads, limit);
      // A window that was not full held every due PENDING row: beyond it there is nothing to
      // claim (an idle poll is one statement).
      if (claimed.isEmpty() && read >= limit) {
        runsPossible[0] = true;
        claimed = lockHeads(c, s, candidates(c, s, d.orderedCandidates(), 2 * limit), limit);
      }
    } else {
      try (PreparedStatement ps = c.prepareStatement(s.sql(s.dialect().lockUnordered()))) {
        ps.setInt(1, limit);
        try (ResultSet rs = ps.executeQuery()) {
          claimed = readClaimed(rs, s.dialect());
        }
      }
    }
    if (!claimed.isEmpty()) {
      try (PreparedStatement ps =
          c.prepareStatement(s.sql(s.dialect().markClaimed(), claimed.size()))) {
        ps.setString(1, owner);
        ps.setLong(2, lease.toMillis());
        int i = 3;
        for (ClaimedEvent e : claimed) {
          ps.setLong(i++, e.seq());
        }
        ps.executeUpdate();
      }
    }
    return claimed;
  }

  /** Seq numbers of ordered-mode candidates, from a statement whose parameters are all ints. */
  private static List<Long> candidates(Connection c, OutboxSql s, String template, int... params)
      throws SQLException {
    List<Long> candidates = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(s.sql(template))) {
      for (int i = 0; i < params.length; i++) {
        ps.setInt(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          candidates.add(rs.getLong(1));
        }
      }
    }
    return candidates;
  }

  /** Locks up to {@code limit} candidates still claimable, skipping those another relay locked. */
  private static List<ClaimedEvent> lockHeads(
      Connection c, OutboxSql s, List<Long> candidates, int limit) throws SQLException {
    if (candidates.isEmpty()) {
      return new ArrayList<>();
    }
    try (PreparedStatement ps =
        c.prepareStatement(s.sql(s.dialect().lockCandidates(), candidates.size()))) {
      int i = 1;
      for (long seq : candidates) {
        ps.setLong(i++, seq);
      }
      ps.setInt(i, limit);
      try (ResultSet rs = ps.executeQuery()) {
        return readClaimed(rs, s.dialect());
      }
    }
  }

  private static List<ClaimedEvent> readClaimed(ResultSet rs, SqlDialect dialect)
      throws SQLException {
    List<ClaimedEvent> claimed = new ArrayList<>();
    while (rs.next()) {
      claimed.add(readOne(rs, dialect));
    }
    return claimed;
  }

  private static ClaimedEvent readOne(ResultSet rs, SqlDialect dialect) throws SQLException {
    long seq = rs.getLong("seq");
    // attempts counts the event's own failed sends; this is the next one.
    int attempt = rs.getInt("attempts") + 1;
    boolean expired = rs.getBoolean("expired");
    OutboxEvent event;
    try {
      event = EventRows.read(rs, dialect);
    } catch (RuntimeException e) {
      return ClaimedEvent.unreadable(
          seq,
          attempt,
          rs.getString("aggregate_type"),
          rs.getString("aggregate_id"),
          "unreadable row: " + e.getMessage());
    }
    return ClaimedEvent.of(seq, attempt, expired, event);
  }

  /** What {@link #reclaimExpiredLeases} did. */
  public static final class Reclaimed {
    /** Rows handed back to PENDING. */
    public final int pending;

    /** Rows quarantined as DEAD for losing too many leases. */
    public final int dead;

    Reclaimed(int pending, int dead) {
      this.pending = pending;
      this.dead = dead;
    }
  }

  /**
   * Hands IN_FLIGHT rows whose lease ran out (by the database clock) back to PENDING, without
   * charging an attempt: the relay that held them may have delivered them and stalled before its
   * acknowledgement. The loss is counted apart, and a row that lost {@code maxLosses} leases
   * becomes DEAD instead — most likely it is what kills or hangs the relays that take it.
   */
  public Reclaimed reclaimExpiredLeases(int maxLosses) throws SQLException {
    return inTransaction(
        c -> {
          OutboxSql s = sql(c);
          int dead;
          try (PreparedStatement ps =
              c.prepareStatement(s.sql(s.dialect().quarantineLostLeases()))) {
            ps.setString(
                1,
                "lease expired "
                    + maxLosses
                    + " times without an outcome: every relay that took it died or stalled while"
                    + " sending it (a message that crashes or hangs the sender?)");
            ps.setInt(2, maxLosses);
            dead = ps.executeUpdate();
          }
          try (PreparedStatement ps =
              c.prepareStatement(s.sql(s.dialect().reclaimExpiredLeases()))) {
            return new Reclaimed(ps.executeUpdate(), dead);
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
  private int record(Connection c, List<OwnedAcks> parts, boolean deleteDelivered)
      throws SQLException {
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
    SqlDialect d = sql(c).dialect();
    int updated = 0;
    updated +=
        updateSeqs(
            c,
            deleteDelivered ? d.deletePublished() : d.markPublished(),
            owner,
            byKind.get(Ack.Kind.PUBLISHED));
    updated += updateSeqs(c, d.markExpired(), owner, byKind.get(Ack.Kind.EXPIRED));
    updated += updateSeqs(c, d.release(), owner, byKind.get(Ack.Kind.RELEASE));
    updated += updateRetries(c, d.markRetry(), owner, byKind.get(Ack.Kind.RETRY));
    updated += updateDead(c, d.markDead(), owner, byKind.get(Ack.Kind.DEAD));
    updated += updateHolds(c, d.markHeld(), owner, byKind.get(Ack.Kind.HOLD));
    return updated;
  }

  private int updateSeqs(Connection c, String template, String owner, List<Ack> acks)
      throws SQLException {
    if (acks == null) {
      return 0;
    }
    int updated = 0;
    for (int from = 0; from < acks.size(); from += MAX_IN_LIST) {
      List<Ack> chunk = acks.subList(from, Math.min(acks.size(), from + MAX_IN_LIST));
      try (PreparedStatement ps = c.prepareStatement(sql(c).sql(template, chunk.size()))) {
        ps.setString(1, owner);
        int i = 2;
        for (Ack ack : chunk) {
          ps.setLong(i++, ack.seq());
        }
        updated += ps.executeUpdate();
      }
    }
    return updated;
  }

  private int updateRetries(Connection c, String template, String owner, List<Ack> acks)
      throws SQLException {
    if (acks == null) {
      return 0;
    }
    try (PreparedStatement ps = c.prepareStatement(sql(c).sql(template))) {
      for (Ack ack : acks) {
        ps.setLong(1, ack.delayMicros());
        ps.setInt(2, ack.charged() ? 1 : 0);
        ps.setString(3, ack.error());
        ps.setLong(4, ack.seq());
        ps.setString(5, owner);
        ps.addBatch();
      }
      return sum(ps.executeBatch());
    }
  }

  /** Holds grouped by delay and error: one statement (per chunk) for each group. */
  private int updateHolds(Connection c, String template, String owner, List<Ack> acks)
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
      for (int from = 0; from < group.size(); from += MAX_IN_LIST) {
        List<Ack> chunk = group.subList(from, Math.min(group.size(), from + MAX_IN_LIST));
        try (PreparedStatement ps = c.prepareStatement(sql(c).sql(template, chunk.size()))) {
          ps.setLong(1, chunk.get(0).delayMicros());
          ps.setString(2, chunk.get(0).error());
          ps.setString(3, owner);
          int i = 4;
          for (Ack ack : chunk) {
            ps.setLong(i++, ack.seq());
          }
          updated += ps.executeUpdate();
        }
      }
    }
    return updated;
  }

  private int updateDead(Connection c, String template, String owner, List<Ack> acks)
      throws SQLException {
    if (acks == null) {
      return 0;
    }
    try (PreparedStatement ps = c.prepareStatement(sql(c).sql(template))) {
      for (Ack ack : acks) {
        ps.setString(1, ack.error());
        ps.setLong(2, ack.seq());
        ps.setString(3, owner);
        ps.addBatch();
      }
      return sum(ps.executeBatch());
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
