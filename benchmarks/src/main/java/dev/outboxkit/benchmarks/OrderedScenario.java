package dev.outboxkit.benchmarks;

import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.testkit.Flavor;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Scenario 6, the part the drain scenario (1,000 aggregates) leaves open: few aggregates, with the
 * null transport and through a real Kafka broker. An ordered claim takes each aggregate's head and
 * the run of due events behind it, so one hot aggregate still fills a batch. Unordered on the same
 * rows shows what ordering costs.
 */
final class OrderedScenario implements Scenario {
  private static final String TABLE = "outbox_event";
  private static final int BATCH = 100;

  /** Started on first use, shared by both databases. */
  private KafkaTarget kafka;

  @Override
  public String name() {
    return "ordered";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "aggregates", "transport", "events", "unordered (events/s)", "ordered (events/s)", "ratio"
        });
    drain(run, events(run) / 5, 100, true); // warm-up, discarded
    for (int aggregates : new int[] {1, 10, 100}) {
      int events = events(run);
      Stats unordered = new Stats();
      Stats ordered = new Stats();
      for (int r = 0; r < run.reps(); r++) {
        unordered.add(drain(run, events, aggregates, false));
        ordered.add(drain(run, events, aggregates, true));
      }
      rows.add(row(aggregates, "null", events, unordered, ordered));
    }
    if (kafka == null) {
      kafka = KafkaTarget.start();
    }
    DrainBenchmark loader = new DrainBenchmark(run.db(), run.dialect());
    for (int aggregates : new int[] {1, 10}) {
      BrokerDrain drain = new BrokerDrain(run.db().dataSource(), loader, BATCH, aggregates);
      int events = events(run);
      drain.rate(kafka, events / 5, RelayListener.NONE, true); // warm-up, discarded
      Stats unordered = new Stats();
      Stats ordered = new Stats();
      for (int r = 0; r < run.reps(); r++) {
        unordered.add(drain.rate(kafka, events, RelayListener.NONE, false));
        ordered.add(drain.rate(kafka, events, RelayListener.NONE, true));
      }
      rows.add(row(aggregates, "Kafka", events, unordered, ordered));
    }
    EventLoader.truncate(run.db().dataSource(), TABLE);
    run.report()
        .section(
            "Ordered mode, few aggregates — " + run.flavor(),
            "PENDING events spread round-robin over few aggregates, drained by one relay (batch "
                + BATCH
                + ") ordered and unordered, through the null transport and through Kafka (one"
                + " in-JVM KRaft broker, idempotent producer). An ordered claim takes each"
                + " aggregate's head and the due events behind it (an even share of the batch"
                + " per aggregate), and a transport that keeps order within a batch (Kafka, the"
                + " null transport here) gets the run in one call. Target: ordered/unordered"
                + " ≥ 0.5 with one hot aggregate, ≥ 0.8 with 10.",
            rows);
  }

  @Override
  public void close() {
    if (kafka != null) {
      kafka.close();
    }
  }

  private static String[] row(
      int aggregates, String transport, int events, Stats unordered, Stats ordered) {
    return new String[] {
      aggregates == 1 ? "1 (one hot aggregate)" : Integer.toString(aggregates),
      transport,
      String.format("%,d", events),
      unordered.format(),
      ordered.format(),
      String.format("%.2f", ordered.median() / unordered.median())
    };
  }

  /** Half as many on MariaDB, whose claims are three statements, to keep the run short. */
  private static int events(BenchRun run) {
    int events = 10_000;
    return run.quick() ? events / 5 : run.flavor() == Flavor.MARIADB ? events / 2 : events;
  }

  private static double drain(BenchRun run, int events, int aggregates, boolean ordered)
      throws Exception {
    DataSource ds = run.db().dataSource();
    EventLoader.pendingOnly(ds, run.dialect(), TABLE, events, aggregates);
    return RelayDrain.eventsPerSecond(ds, TABLE, BATCH, ordered, events);
  }
}
