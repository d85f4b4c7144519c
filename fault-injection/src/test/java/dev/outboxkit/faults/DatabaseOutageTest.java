package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.RecordingListener;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Scenario 4, database outage under the relay. While two relays drain a backlog to Kafka, the
 * server cuts their connections again and again ({@code pg_terminate_backend} on PostgreSQL, {@code
 * KILL} on MariaDB), hitting claims, acknowledgements and idle pooled connections alike. The relays
 * must log the failure, back off, get fresh connections through their pools, and finish with every
 * event on the topic, nothing DEAD and nothing stuck.
 *
 * <p>On PostgreSQL only sessions whose {@code application_name} is this test's tag are cut: the CI
 * server is shared, and the test kit's databases there are schemas of one database. On MariaDB the
 * test database is a database of its own, so its sessions ({@code processlist.db}) are the target;
 * that includes the test's own pooled connections, whose reads retry.
 */
class DatabaseOutageTest extends FaultTest {
  private static final int EVENTS = 20_000;
  private static final int REFILL = 5_000;
  private static final int MIN_CUTS = 8;
  private static final int MAX_CUTS = 30;
  private static final Pattern ACK_GAVE_UP =
      Pattern.compile("recording the outcome of (\\d+) events failed \\(try 3 of 3\\)");

  @Test
  void loses_nothing_and_reconnects_when_the_server_cuts_the_relays_connections_mid_drain()
      throws Exception {
    KafkaTestBroker broker = KafkaTestBroker.shared();
    String type = unique("Invoice");
    String topic = createTopic(broker, type);
    long start = System.nanoTime();
    List<OutboxEvent> events = new ArrayList<>(append(EVENTS, 1_000, i -> event(type, i, 500)));
    String tag = unique("okfi_cut_").toLowerCase(Locale.ROOT);
    long logMark = TestLog.mark();
    RecordingListener counters = new RecordingListener();
    startTwoKafkaRelays("cut", tag, counters);

    int rounds = 0;
    int cut = 0;
    int refills = 0;
    while (rounds < MAX_CUTS) {
      boolean drained = count(EventStatus.PUBLISHED) >= events.size();
      if (drained && rounds >= MIN_CUTS) {
        break;
      }
      if (drained && refill(events, type)) {
        refills++;
      }
      sleep(50 + random.nextInt(200));
      int n = retrying(() -> cutConnections(tag));
      cut += n;
      if (n > 0) {
        rounds++;
      }
    }
    log.info("[{}] cut {} connections in {} rounds", flavor(), cut, rounds);
    awaitPublished(events.size(), Duration.ofMinutes(3));
    double seconds = secondsSince(start);

    assertThat(statuses())
        .containsEntry(EventStatus.IN_FLIGHT, 0L)
        .containsEntry(EventStatus.PENDING, 0L)
        .containsEntry(EventStatus.DEAD, 0L);
    TopicCopies copies = TopicCopies.read(broker, topic);
    long lost = copies.lost(events);
    int duplicates = copies.duplicates();

    // What the relays said about it.
    int dbErrors = TestLog.linesSince(logMark, "[cut-", "database error, retrying in").size();
    int ackRetries = TestLog.linesSince(logMark, "[cut-", "recording the outcome of").size();
    int abandonedAckEvents = 0;
    for (String line : TestLog.linesSince(logMark, "[cut-", "(try 3 of 3)")) {
      Matcher m = ACK_GAVE_UP.matcher(line);
      if (m.find()) {
        abandonedAckEvents += Integer.parseInt(m.group(1));
      }
    }
    writeReport(
        "4 database outage",
        events,
        copies,
        seconds,
        cut
            + " connections cut in "
            + rounds
            + " rounds ("
            + refills
            + " refills of "
            + REFILL
            + " events while cutting); relays logged "
            + dbErrors
            + " database errors and "
            + ackRetries
            + " failed acknowledgement tries; "
            + abandonedAckEvents
            + " events' acknowledgements abandoned");

    assertThat(lost).as("events missing from the topic").isZero();
    assertThat(rounds).as("rounds that cut relay connections").isGreaterThanOrEqualTo(MIN_CUTS);
    assertThat(dbErrors + ackRetries)
        .as("relay failures the cuts caused, logged as database errors")
        .isPositive();
    // A duplicate needs an acknowledgement that failed three times after Kafka had the batch:
    // the rows then wait out their lease and go again.
    assertThat(duplicates)
        .as("duplicates beyond abandoned acknowledgements")
        .isLessThanOrEqualTo(abandonedAckEvents);
  }

  /**
   * The relays outran the cuts (PostgreSQL drains the backlog in about 3 s): more events, in one
   * transaction, so that the next rounds still cut relays that are draining. A cut of the test's
   * own connection (MariaDB) rolls the refill back; the next round tries again.
   */
  private boolean refill(List<OutboxEvent> events, String type) {
    int from = events.size();
    try {
      events.addAll(append(REFILL, REFILL, i -> event(type, from + i, 500)));
      return true;
    } catch (SQLException e) {
      log.info("[{}] refill rolled back by a cut: {}", flavor(), e.getMessage());
      return false;
    }
  }

  /** Cuts every connection of the relays, from the server side; returns how many. */
  private int cutConnections(String tag) {
    try (Connection c = ds.getConnection()) {
      if (flavor() == Flavor.POSTGRES) {
        try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    + " WHERE application_name = ? AND pid <> pg_backend_pid()")) {
          ps.setString(1, tag);
          int n = 0;
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              n += rs.getBoolean(1) ? 1 : 0;
            }
          }
          return n;
        }
      }
      List<Long> ids = new ArrayList<>();
      try (Statement s = c.createStatement();
          ResultSet rs =
              s.executeQuery(
                  "SELECT id FROM information_schema.processlist"
                      + " WHERE db = DATABASE() AND id <> CONNECTION_ID()")) {
        while (rs.next()) {
          ids.add(rs.getLong(1));
        }
      }
      int n = 0;
      for (long id : ids) {
        try (Statement s = c.createStatement()) {
          s.execute("KILL " + id);
          n++;
        } catch (SQLException gone) {
          // closed meanwhile
        }
      }
      return n;
    } catch (SQLException e) {
      throw new IllegalStateException("cutting connections failed", e);
    }
  }
}
