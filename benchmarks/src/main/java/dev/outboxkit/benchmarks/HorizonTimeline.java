package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * One run of {@link HorizonScenario}: the steady writer on this thread, the relay in the
 * background, the held snapshot on a connection of its own, bursts and samples at fixed offsets.
 */
final class HorizonTimeline {
  private static final byte[] PAYLOAD =
      "{\"order\":\"o-1\",\"total\":42,\"lines\":3}".getBytes(StandardCharsets.UTF_8);
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  /** How long the relay gets, after the writer stopped, to finish what was committed. */
  static final Duration DRAIN_LIMIT = Duration.ofMinutes(5);

  /** One minute of commit time. */
  record Minute(
      int index,
      String phase,
      int events,
      double p50Ms,
      double p99Ms,
      double claimMs,
      long deadTuples,
      double indexMb,
      double claimIndexMb) {}

  /** One burst's drain. */
  record Burst(String mark, double rate) {}

  /** What a run measured, and the verdict against the targets. */
  record Result(List<Minute> minutes, List<Burst> bursts, String verdict) {}

  private final DataSource ds;
  private final long before;
  private final long held;
  private final long total;

  HorizonTimeline(TestDatabase db, Duration before, Duration held, Duration after)
      throws SQLException {
    this.ds = db.dataSource();
    this.before = before.toNanos();
    this.held = held.toNanos();
    this.total = before.plus(held).plus(after).toNanos();
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      PacedWriter.createTable(c);
      s.execute("TRUNCATE TABLE outbox_event");
      s.execute("TRUNCATE TABLE " + PacedWriter.BUSINESS_TABLE);
      s.execute("VACUUM ANALYZE outbox_event");
    }
  }

  Result run() throws Exception {
    AckClock acks = new AckClock();
    ClaimTimes claims = new ClaimTimes();
    Map<UUID, long[]> steady = new HashMap<>(); // id → {commit micros, commit nanos offset}
    List<long[]> burstWindows = new ArrayList<>(); // {commit micros, drained micros}
    List<List<UUID>> burstIds = new ArrayList<>();
    List<String> burstMarks = new ArrayList<>();
    long[][] samples = new long[(int) (total / MINUTE) + 1][];
    // Marks in nanos from the start: bursts a minute before the hold, 30 s into it, 30 s before
    // its end, and a minute before the end.
    long[] bursts = {
      before - MINUTE, before + MINUTE / 2, before + held - MINUTE / 2, total - MINUTE
    };
    String[] burstNames = {
      "alone",
      "held, 30 s in",
      "held, " + TimeUnit.NANOSECONDS.toMinutes(held) + " min mark",
      "released, " + TimeUnit.NANOSECONDS.toMinutes(total - before - held) + " min on"
    };
    int nextBurst = 0;
    int nextSample = 0;
    Connection holder = null;
    long period = 1_000_000_000L / HorizonScenario.RATE;
    try (OutboxRelay relay =
            OutboxRelay.builder(ds, acks).name("horizon").listener(claims).build();
        Connection writer = ds.getConnection();
        Connection stats = ds.getConnection();
        PreparedStatement business =
            writer.prepareStatement(
                "INSERT INTO " + PacedWriter.BUSINESS_TABLE + " VALUES (?, ?)")) {
      writer.setAutoCommit(false);
      relay.start();
      long start = System.nanoTime();
      claims.start = start;
      for (long i = 0; ; i++) {
        long due = start + i * period;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          LockSupport.parkNanos(wait);
        }
        long now = System.nanoTime() - start;
        if (now >= total) {
          break;
        }
        if (holder == null && now >= before && now < before + held) {
          holder = holdSnapshot();
        } else if (holder != null && now >= before + held) {
          holder.commit();
          holder.close();
          holder = null;
        }
        if (nextSample < samples.length && now >= (nextSample + 1) * MINUTE) {
          samples[nextSample++] = sample(stats);
        }
        if (nextBurst < bursts.length && now >= bursts[nextBurst]) {
          burstIds.add(burst(writer));
          burstWindows.add(new long[] {PacedWriter.micros(Instant.now()), 0});
          burstMarks.add(burstNames[nextBurst++]);
          continue;
        }
        String orderId = UUID.randomUUID().toString();
        business.setString(1, orderId);
        business.setInt(2, 42);
        business.executeUpdate();
        OutboxEvent e = event(orderId);
        Outbox.append(writer, e);
        writer.commit();
        steady.put(
            e.id(), new long[] {PacedWriter.micros(Instant.now()), System.nanoTime() - start});
      }
      if (nextSample < samples.length) {
        samples[nextSample] = sample(stats);
      }
      int expected = steady.size() + burstIds.stream().mapToInt(List::size).sum();
      long giveUp = System.nanoTime() + DRAIN_LIMIT.toNanos();
      while (acks.count() < expected && System.nanoTime() < giveUp) {
        Thread.sleep(20); // waits for a condition, with a bound; the figures come from the clocks
      }
    } finally {
      if (holder != null) {
        holder.rollback();
        holder.close();
      }
    }
    String unfinished = check(acks, steady, burstIds);
    List<Burst> drains = new ArrayList<>();
    for (int b = 0; b < burstIds.size(); b++) {
      long last = 0;
      for (UUID id : burstIds.get(b)) {
        last = Math.max(last, acks.acks().getOrDefault(id, Long.MAX_VALUE));
      }
      long[] w = burstWindows.get(b);
      w[1] = last;
      drains.add(
          new Burst(
              burstMarks.get(b),
              last == Long.MAX_VALUE ? 0 : HorizonScenario.BURST / ((last - w[0]) / 1e6)));
    }
    List<Minute> minutes = minutes(acks, steady, burstWindows, claims, samples);
    return new Result(minutes, drains, unfinished + verdict(minutes, drains));
  }

  private Connection holdSnapshot() throws SQLException {
    Connection c = ds.getConnection();
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + PacedWriter.BUSINESS_TABLE)) {
      rs.next(); // the snapshot is taken by the first statement and held until commit
    }
    return c;
  }

  private static OutboxEvent event(String aggregateId) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced")
        .payload(PAYLOAD, OutboxEvent.JSON)
        .build();
  }

  private static List<UUID> burst(Connection writer) throws SQLException {
    List<OutboxEvent> events = new ArrayList<>(HorizonScenario.BURST);
    for (int i = 0; i < HorizonScenario.BURST; i++) {
      events.add(event("burst-" + UUID.randomUUID()));
    }
    Outbox.appendAll(writer, events);
    writer.commit();
    List<UUID> ids = new ArrayList<>(events.size());
    events.forEach(e -> ids.add(e.id()));
    return ids;
  }

  /** {dead row versions, bytes of all indexes, bytes of the claim index}. */
  private static long[] sample(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT n_dead_tup FROM pg_stat_user_tables"
                    + " WHERE relname = 'outbox_event' AND schemaname = current_schema()),"
                    + " pg_indexes_size('outbox_event'),"
                    + " pg_relation_size('outbox_event_claim_idx')")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
    }
  }

  /**
   * Checks that every acknowledged event is PUBLISHED and none was lost or sent twice; says, for
   * the report, if the relay had not caught up within {@link #DRAIN_LIMIT}.
   *
   * @return "" when every committed event was acknowledged and PUBLISHED
   */
  private String check(AckClock acks, Map<UUID, long[]> steady, List<List<UUID>> bursts)
      throws SQLException {
    long committed = steady.size() + bursts.stream().mapToLong(List::size).sum();
    OutboxAdmin admin = OutboxAdmin.create(ds);
    long published = admin.count(EventStatus.PUBLISHED);
    long waiting = admin.count(EventStatus.PENDING) + admin.count(EventStatus.IN_FLIGHT);
    if (published != acks.count() || published + waiting != committed) {
      throw new IllegalStateException(
          String.format(
              "horizon run broken: %d committed, %d acknowledged, %d PUBLISHED, %d waiting",
              committed, acks.count(), published, waiting));
    }
    return waiting == 0
        ? ""
        : String.format(
            "NOT CAUGHT UP: %,d of %,d events still waiting %d min after the writer stopped"
                + " (nothing lost: every acknowledged event is PUBLISHED, the rest PENDING or"
                + " IN_FLIGHT). ",
            waiting, committed, DRAIN_LIMIT.toMinutes());
  }

  private List<Minute> minutes(
      AckClock acks,
      Map<UUID, long[]> steady,
      List<long[]> burstWindows,
      ClaimTimes claims,
      long[][] samples) {
    int count = (int) (total / MINUTE);
    List<List<Long>> latencies = new ArrayList<>();
    for (int m = 0; m < count; m++) {
      latencies.add(new ArrayList<>());
    }
    for (Map.Entry<UUID, long[]> e : steady.entrySet()) {
      long commit = e.getValue()[0];
      int m = (int) (e.getValue()[1] / MINUTE);
      if (m >= count || duringBurst(commit, burstWindows)) {
        continue;
      }
      Long ack = acks.acks().get(e.getKey());
      latencies.get(m).add(ack == null ? Long.MAX_VALUE / 2 : ack - commit); // never: the worst
    }
    List<Minute> minutes = new ArrayList<>();
    for (int m = 0; m < count; m++) {
      List<Long> l = latencies.get(m);
      Collections.sort(l);
      long[] s = samples[m] == null ? new long[3] : samples[m];
      minutes.add(
          new Minute(
              m,
              phase(m * MINUTE),
              l.size(),
              percentile(l, 0.50) / 1000.0,
              percentile(l, 0.99) / 1000.0,
              claims.medianMs(m),
              s[0],
              s[1] / 1048576.0,
              s[2] / 1048576.0));
    }
    return minutes;
  }

  private String phase(long at) {
    return at < before ? "alone" : at < before + held ? "held" : "released";
  }

  private static boolean duringBurst(long commitMicros, List<long[]> windows) {
    for (long[] w : windows) {
      // A steady event committed while a burst drained waited behind it: left out.
      if (commitMicros >= w[0] && commitMicros <= w[1]) {
        return true;
      }
    }
    return false;
  }

  private static long percentile(List<Long> sorted, double p) {
    if (sorted.isEmpty()) {
      return 0;
    }
    int rank = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, rank - 1));
  }

  private String verdict(List<Minute> minutes, List<Burst> bursts) {
    List<Double> aloneP99 = new ArrayList<>();
    double lastHeldP99 = 0;
    for (Minute m : minutes) {
      if (m.phase().equals("alone") && m.index() > 0) {
        aloneP99.add(m.p99Ms());
      }
      if (m.phase().equals("held")) {
        lastHeldP99 = m.p99Ms();
      }
    }
    Collections.sort(aloneP99);
    double alone = aloneP99.isEmpty() ? minutes.get(0).p99Ms() : aloneP99.get(aloneP99.size() / 2);
    double drain = bursts.get(2).rate() / bursts.get(0).rate();
    double p99 = lastHeldP99 / alone;
    return String.format(
        "At the end of the held window: drain %.2f of alone (target ≥ 0.8, %s), p99 of its last"
            + " minute %.2f× the median p99 of the minutes alone after the first (target ≤ 2, %s).",
        drain, drain >= 0.8 ? "met" : "missed", p99, p99 <= 2 ? "met" : "missed");
  }

  /** Claim times of batches that found events, by minute since the start. */
  private static final class ClaimTimes implements RelayListener {
    volatile long start;
    private final Map<Integer, List<Long>> micros = new HashMap<>();

    @Override
    public void batchClaimed(int size, Duration claimTime) {
      int m = (int) ((System.nanoTime() - start) / MINUTE);
      synchronized (micros) {
        micros.computeIfAbsent(m, k -> new ArrayList<>()).add(claimTime.toNanos() / 1000);
      }
    }

    double medianMs(int minute) {
      List<Long> l;
      synchronized (micros) {
        l = new ArrayList<>(micros.getOrDefault(minute, List.of()));
      }
      Collections.sort(l);
      return l.isEmpty() ? 0 : l.get(l.size() / 2) / 1000.0;
    }
  }
}
