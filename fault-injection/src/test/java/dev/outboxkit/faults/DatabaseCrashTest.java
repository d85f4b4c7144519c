package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.RecordingListener;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.JdbcUrlServer;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;

/**
 * Scenario 5, the database server crashes under the relay. While two relays drain a backlog to
 * Kafka, the test kills the server with {@code SIGKILL} (PostgreSQL: the postmaster and all its
 * backends; MariaDB: {@code mariadbd}), waits two seconds and starts it again on the same data
 * directory and port, so it runs crash recovery; three times, at random points of the drain. No
 * committed event may be lost, nothing may be left PENDING, IN_FLIGHT or DEAD.
 *
 * <p>Duplicates are expected, and accounted for. The relay sends a batch outside any transaction; a
 * crash then takes the acknowledgement with it: it never committed (the server died under it) or it
 * committed but did not survive (PostgreSQL: the relay's own transactions commit with {@code
 * synchronous_commit=off}, so the last claims and acknowledgements before a crash may be lost; the
 * application's appends are synchronous). Either way the rows come back, PENDING or with a lease
 * that runs out, and are sent again. Every copy is counted per event id on the topic and set
 * against the acknowledgements the relays saw commit.
 *
 * <p>Unlike the other scenarios this one needs a server of its own (the shared ones must never be
 * killed), so it replaces {@link FaultTest}'s database with one on a {@link DatabaseCrashServer}.
 */
class DatabaseCrashTest extends FaultTest {
  private static final int EVENTS = 20_000;
  private static final int CRASHES = 3;
  private static final Duration DOWN = Duration.ofSeconds(2);
  private static final Duration RESUME_TIMEOUT = Duration.ofSeconds(60);

  private DatabaseCrashServer server;

  /** A server of {@link #flavor()}, not started. */
  private DatabaseCrashServer newServer() {
    return flavor() == Flavor.POSTGRES
        ? new DatabaseCrashPostgresServer()
        : new DatabaseCrashMariaDbServer();
  }

  @Override
  protected TestDatabase newDatabase(String name) {
    server = newServer();
    server.start();
    return new JdbcUrlServer(flavor(), server.toString(), server.adminUrl, server.user, "")
        .createDatabase(name);
  }

  /**
   * Stops the run's server. The run's database is closed after this (FreshDatabase closes it once
   * the run is done): its pool's connections are gone with the server, and its drop is refused,
   * which leaves nothing behind: the next start deletes the data directory.
   */
  @AfterParameterizedClassInvocation
  void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void loses_nothing_when_the_database_server_is_killed_and_restarted_mid_drain() throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Parcel");
    String topic = createTopic(broker, type);
    long start = System.nanoTime();
    List<OutboxEvent> events = append(EVENTS, 1_000, i -> event(type, i, 500));
    long logMark = TestLog.mark();
    RecordingListener acks = new RecordingListener();
    startTwoKafkaRelays("crash", null, acks);

    List<Crash> crashes = new ArrayList<>();
    for (int k = 0; k < CRASHES; k++) {
      // Somewhere in the next stretch of the drain: 15 to 50 % of what is left, shared among the
      // crashes still to come, so even the last one leaves half of what it found to drain.
      long published = count(EventStatus.PUBLISHED);
      long target =
          published
              + (long) ((EVENTS - published) * (0.15 + 0.35 * random.nextDouble()) / (CRASHES - k));
      int n = k + 1;
      Await.until(
          () -> count(EventStatus.PUBLISHED) >= target,
          Duration.ofMinutes(2),
          () -> target + " PUBLISHED before crash " + n + "; statuses " + statuses());
      crashes.add(crash(n));
    }
    awaitPublished(EVENTS, Duration.ofMinutes(3));
    double seconds = secondsSince(start);

    Map<EventStatus, Long> statuses = statuses();
    TopicCopies copies = TopicCopies.read(broker, topic);
    long lost = copies.lost(events);
    int duplicates = copies.duplicates();
    // Where the duplicates come from. Every copy on the topic was acknowledged (the relay saw its
    // PUBLISHED update commit) or not. An acknowledgement that never committed (the server died
    // under it, three times) leaves its rows to go again once their lease runs out. One that
    // committed can still be undone: lost in the crash (asynchronous commit), or fenced because
    // the claim it belongs to was lost in the crash, so the rows were PENDING again and claimed
    // anew. And a commit the relay saw fail may have held (its reply died with the server): that
    // event has a copy but no acknowledgement, and is PUBLISHED all the same.
    long neverCommitted = 0;
    long undone = 0;
    long heldUnseen = 0;
    List<String> unbacked = new ArrayList<>();
    for (Map.Entry<String, Integer> e : copies.byId.entrySet()) {
      int delivered = e.getValue();
      int acknowledged = acks.published.getOrDefault(UUID.fromString(e.getKey()), 0);
      if (acknowledged > delivered) {
        unbacked.add(e.getKey() + " (" + acknowledged + " acks, " + delivered + " copies)");
      }
      neverCommitted += Math.max(0, delivered - acknowledged);
      undone += Math.max(0, acknowledged - 1);
      heldUnseen += acknowledged == 0 ? 1 : 0;
    }
    int fenced = acks.leaseLost.get();
    int dbErrors = TestLog.linesSince(logMark, "[crash-", "database error, retrying in").size();
    OptionalInt recoveries = server.crashRecoveries();

    new FaultReport(
            "5 database crash",
            database(),
            EVENTS,
            copies.distinct(),
            duplicates,
            statuses.getOrDefault(EventStatus.DEAD, 0L),
            lost,
            seconds,
            CRASHES
                + " SIGKILLs + restarts: "
                + crashes.stream().map(Crash::toString).collect(Collectors.joining("; "))
                + (recoveries.isPresent()
                    ? "; " + recoveries.getAsInt() + " crash recoveries in the server log"
                    : "")
                + "; duplicates = "
                + fenced
                + " fenced (claim lost in a crash, ack refused) + "
                + (undone - fenced)
                + " acks lost in a crash + "
                + neverCommitted
                + " acks never committed - "
                + heldUnseen
                + " failed-looking acks that held; relays logged "
                + dbErrors
                + " database errors")
        .write();

    assertThat(lost).as("events missing from the topic").isZero();
    assertThat(statuses)
        .as("events left behind")
        .containsEntry(EventStatus.PENDING, 0L)
        .containsEntry(EventStatus.IN_FLIGHT, 0L)
        .containsEntry(EventStatus.DEAD, 0L);
    assertThat(unbacked)
        .as("events acknowledged as published more often than they reached the topic")
        .isEmpty();
    if (recoveries.isPresent()) {
      assertThat(recoveries.getAsInt()).as("crash recoveries the server ran").isEqualTo(CRASHES);
    }
  }

  /**
   * Kills the server, waits {@link #DOWN}, restarts it, and waits until the relays publish again.
   */
  private Crash crash(int n) {
    long before = count(EventStatus.PUBLISHED);
    DatabaseCrashServer.Kill kill = server.kill();
    long killedAt = System.nanoTime();
    sleep(DOWN.toMillis());
    long restartAt = System.nanoTime();
    server.restart();
    long readyAt = System.nanoTime();
    long after = count(EventStatus.PUBLISHED);
    Await.until(
        () -> {
          long now = count(EventStatus.PUBLISHED);
          return now > after || now >= EVENTS;
        },
        RESUME_TIMEOUT,
        () -> "relays publishing again after restart " + n + "; statuses " + statuses());
    Crash crash =
        new Crash(
            n,
            before,
            after,
            kill.processes,
            (readyAt - killedAt) / 1e9,
            (readyAt - restartAt) / 1e9,
            secondsSince(readyAt));
    log.info("[{}] {}", flavor(), crash);
    return crash;
  }

  /** One kill and restart, as the report shows it. */
  private static final class Crash {
    final int n;
    final long publishedBefore;
    final long publishedAfter;
    final int processes;
    final double down;
    final double startup;
    final double resume;

    Crash(
        int n,
        long publishedBefore,
        long publishedAfter,
        int processes,
        double down,
        double startup,
        double resume) {
      this.n = n;
      this.publishedBefore = publishedBefore;
      this.publishedAfter = publishedAfter;
      this.processes = processes;
      this.down = down;
      this.startup = startup;
      this.resume = resume;
    }

    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "#%d at %.0f%% published (%s killed; down %.1f s, of which %.1f s starting"
              + " with crash recovery; PUBLISHED %d before, %d after; relays publishing again"
              + " %.1f s after the restart)",
          n,
          100.0 * publishedBefore / EVENTS,
          processes == 1 ? "1 process" : processes + " processes",
          down,
          startup,
          publishedBefore,
          publishedAfter,
          resume);
    }
  }
}
