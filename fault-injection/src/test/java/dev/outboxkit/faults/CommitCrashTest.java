package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.ChildJvm;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Scenario 1, application crash around commit (guarantee 1, atomic intent). A child JVM appends in
 * business transactions and is SIGKILLed, again and again: paused before {@code commit()} with the
 * transaction open, paused right after {@code commit()} returned, or at a random moment of its
 * tight loop (often inside a statement or the commit itself). The database must then hold, for
 * every committed business row, exactly one outbox row, and no outbox row without its business row;
 * every transaction the child saw committed must be there in full.
 */
class CommitCrashTest extends FaultTest {
  private static final int KILLS = 20;

  /** Where a kill landed, judged by the child's last protocol line. */
  enum Phase {
    PAUSED_BEFORE_COMMIT,
    PAUSED_AFTER_COMMIT,
    RANDOM_IN_COMMIT,
    RANDOM_BETWEEN_COMMITS
  }

  @BeforeEach
  void createBusinessTable() throws SQLException {
    execute(
        "CREATE TABLE IF NOT EXISTS payment (id VARCHAR(100) NOT NULL PRIMARY KEY,"
            + " amount INT NOT NULL)");
    execute("DELETE FROM payment");
  }

  @Test
  void keeps_business_rows_and_events_together_when_the_application_is_killed_around_commit()
      throws Exception {
    long start = System.nanoTime();
    Map<Phase, Integer> phases = new EnumMap<>(Phase.class);
    Map<String, Integer> committed = new HashMap<>(); // "run-tx" -> rows, as the child saw it
    Map<String, Integer> inDoubt = new HashMap<>(); // killed between COMMITTING and COMMITTED
    for (int k = 0; k < KILLS; k++) {
      String run = "r" + k;
      int mode = k % 4;
      String pause = mode == 0 ? "BEFORE_COMMIT" : mode == 1 ? "AFTER_COMMIT" : "NONE";
      List<String> args = new ArrayList<>(coordinates().args());
      args.add("--run=" + run);
      args.add("--pause=" + pause);
      args.add("--pause-at=" + random.nextInt(40));
      try (ChildJvm child = startChild("commit-crash-" + run, CommitCrashChild.class, args)) {
        child.expectLine(l -> l.endsWith(" READY"), Duration.ofSeconds(60), "READY");
        if (mode < 2) {
          child.expectLine(l -> l.contains(" PAUSED "), Duration.ofSeconds(60), "PAUSED");
        } else {
          sleep(20 + random.nextInt(600));
        }
        child.kill();
        List<String> lines = child.lines();
        String last = lines.get(lines.size() - 1);
        for (String line : lines) {
          String[] f = line.split(" ");
          if (f[1].equals("COMMITTED")) {
            committed.put(run + "-" + f[2], Integer.parseInt(f[3]));
          }
        }
        String[] f = last.split(" ");
        Phase phase;
        if (mode == 0) {
          phase = Phase.PAUSED_BEFORE_COMMIT;
        } else if (mode == 1) {
          phase = Phase.PAUSED_AFTER_COMMIT;
        } else if (f[1].equals("COMMITTING")) {
          phase = Phase.RANDOM_IN_COMMIT;
          inDoubt.put(run + "-" + f[2], Integer.parseInt(f[3]));
        } else {
          phase = Phase.RANDOM_BETWEEN_COMMITS;
        }
        phases.merge(phase, 1, Integer::sum);
        log.info(
            "[{}] kill {} of {}: {} after {} lines", flavor(), k + 1, KILLS, phase, lines.size());
      }
    }

    // Atomicity, checked in the database itself by the shared key. A COMMIT the last kill cut
    // into may still land while these run: each check is one statement, so it sees that
    // transaction whole or not at all.
    long payments = queryLong("SELECT COUNT(*) FROM payment");
    long events = queryLong("SELECT COUNT(*) FROM outbox_event");
    long paymentsWithoutEvent =
        queryLong(
            "SELECT COUNT(*) FROM payment p WHERE NOT EXISTS"
                + " (SELECT 1 FROM outbox_event o WHERE o.aggregate_id = p.id)");
    long eventsWithoutPayment =
        queryLong(
            "SELECT COUNT(*) FROM outbox_event o WHERE NOT EXISTS"
                + " (SELECT 1 FROM payment p WHERE p.id = o.aggregate_id)");
    List<String> doubled =
        queryStrings(
            "SELECT aggregate_id FROM outbox_event GROUP BY aggregate_id HAVING COUNT(*) > 1");
    assertThat(paymentsWithoutEvent).as("payments without their event").isZero();
    assertThat(eventsWithoutPayment).as("events without their payment").isZero();
    assertThat(doubled).as("payments with more than one event").isEmpty();
    assertThat(
            queryLong(
                "SELECT (SELECT COUNT(*) FROM outbox_event) - (SELECT COUNT(*) FROM payment)"))
        .as("events minus payments")
        .isZero();

    // Durability and all-or-nothing per transaction.
    Map<String, Integer> rowsPerTx = new HashMap<>();
    for (String id : queryStrings("SELECT id FROM payment")) {
      rowsPerTx.merge(id.substring(0, id.lastIndexOf('-')), 1, Integer::sum);
    }
    committed.forEach(
        (tx, rows) ->
            assertThat(rowsPerTx.get(tx)).as("rows of committed tx %s", tx).isEqualTo(rows));
    rowsPerTx.forEach(
        (tx, rows) -> {
          Integer expected = committed.containsKey(tx) ? committed.get(tx) : inDoubt.get(tx);
          assertThat(expected)
              .as("tx %s in the database was committed or in commit", tx)
              .isNotNull();
          assertThat(rows).as("rows of tx %s", tx).isEqualTo(expected);
        });
    int inDoubtLanded = 0;
    for (String tx : inDoubt.keySet()) {
      if (rowsPerTx.containsKey(tx)) {
        inDoubtLanded++;
      }
    }

    // And every committed event gets out: drain with an in-memory transport.
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder(ds, transport).name("crash-drain").batchSize(500).build()) {
      relay.drain();
    }
    List<OutboxEvent> delivered = transport.deliveredEvents();
    Set<String> deliveredAggregates = new HashSet<>();
    delivered.forEach(e -> deliveredAggregates.add(e.aggregateId()));
    long lost = 0;
    for (String id : queryStrings("SELECT id FROM payment")) {
      if (!deliveredAggregates.contains(id)) {
        lost++;
      }
    }
    assertThat(lost).as("committed payments whose event was not delivered").isZero();
    assertThat(count(EventStatus.PUBLISHED)).isEqualTo(queryLong("SELECT COUNT(*) FROM payment"));

    new FaultReport(
            "1 app crash around commit",
            database(),
            events,
            deliveredAggregates.size(),
            delivered.size() - deliveredAggregates.size(),
            count(EventStatus.DEAD),
            lost,
            secondsSince(start),
            KILLS
                + " SIGKILLs "
                + phases
                + "; "
                + inDoubt.size()
                + " killed inside commit(), "
                + inDoubtLanded
                + " of those committed")
        .write();
  }
}
