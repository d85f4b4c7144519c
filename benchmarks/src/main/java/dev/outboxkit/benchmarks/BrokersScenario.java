package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.RelayListener;
import java.util.ArrayList;
import java.util.List;

/**
 * Scenario 3: drain the same PENDING events through the relay to a real Kafka broker, an embedded
 * ActiveMQ and a local webhook receiver, each beside its raw client sending the same messages, and
 * beside the hand-written SQL loop of scenario 2 at the same batch size.
 */
final class BrokersScenario implements Scenario {
  private static final int BATCH = 500;
  private static final int AGGREGATES = 1000;
  private static final int PAYLOAD_BYTES = 200;
  private static final int WARM_UP_EVENTS = 2_000;

  /** One broker of each kind, started on first use and shared by both databases. */
  private List<BrokerTarget> targets;

  @Override
  public String name() {
    return "brokers";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    if (targets == null) {
      targets = List.of(KafkaTarget.start(), JmsTarget.start(), WebhookTarget.start());
    }
    measure(run);
  }

  private void measure(BenchRun run) throws Exception {
    DrainBenchmark drain = new DrainBenchmark(run.db(), run.dialect());
    BrokerDrain relay = new BrokerDrain(run.db().dataSource(), drain, BATCH, AGGREGATES);
    int loopEvents = targets.get(0).events(run.quick());
    Stats loop = new Stats();
    drain.load(WARM_UP_EVENTS, AGGREGATES); // warm-up, discarded
    drain.baseline(WARM_UP_EVENTS, BATCH);
    for (int r = 0; r < run.reps(); r++) {
      drain.load(loopEvents, AGGREGATES);
      loop.add(drain.baseline(loopEvents, BATCH));
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "destination",
          "events",
          "raw client (events/s)",
          "transport alone (events/s)",
          "transport alone / raw",
          "relay + transport (events/s)",
          "relay/raw",
          "relay / min(SQL loop, raw)",
          "relay per batch: claim, send, ack (median ms); events"
        });
    rows.add(
        new String[] {
          "none: hand-written SQL loop",
          String.format("%,d", loopEvents),
          loop.format(),
          "",
          "",
          "",
          "",
          "",
          ""
        });
    StringBuilder described = new StringBuilder();
    for (BrokerTarget target : targets) {
      int n = target.events(run.quick());
      List<OutboxEvent> events = events(n);
      relay.rate(target, WARM_UP_EVENTS, RelayListener.NONE); // warm-up, discarded
      relay.rawRate(target, events.subList(0, WARM_UP_EVENTS));
      relay.transportRate(target, events.subList(0, WARM_UP_EVENTS));
      Stats raw = new Stats();
      Stats alone = new Stats();
      Stats relayed = new Stats();
      BatchTimes times = new BatchTimes();
      for (int r = 0; r < run.reps(); r++) {
        relayed.add(relay.rate(target, n, times));
        raw.add(relay.rawRate(target, events));
        alone.add(relay.transportRate(target, events));
      }
      rows.add(
          new String[] {
            target.name(),
            String.format("%,d", n),
            raw.format(),
            alone.format(),
            String.format("%.2f", alone.median() / raw.median()),
            relayed.format(),
            String.format("%.2f", relayed.median() / raw.median()),
            String.format("%.2f", relayed.median() / Math.min(loop.median(), raw.median())),
            times.summary()
          });
      described.append("\n- ").append(target.describe()).append('.');
    }
    run.report()
        .section(
            "Drain to real brokers — " + run.flavor(),
            "PENDING events ("
                + PAYLOAD_BYTES
                + "-byte JSON payload, "
                + AGGREGATES
                + " aggregates, one user header; loaded as in scenario 2) drained by one unordered"
                + " relay at batch size "
                + BATCH
                + " through each transport, beside the raw client sending the same messages"
                + " (payload, key, headers) and the hand-written SQL loop of scenario 2 at the same"
                + " batch size (no broker). Every round checks that all events arrived (counted at"
                + " the broker or receiver) and, for the relay, that all are PUBLISHED. The"
                + " transport alone sends the same messages in batches of the same size with no"
                + " database (each batch a sendBatch call, as the relay makes it), which separates"
                + " what the transport costs from what the relay's database work beside it costs."
                + " Target for"
                + " Kafka: relay ≥ 0.6 × min(SQL loop, raw producer). The last column shows where"
                + " the relay's time goes (RelayListener timings: claim transaction, transport send,"
                + " acknowledgement transaction)."
                + described,
            rows);
  }

  /** Events shaped like the rows {@link DrainBenchmark#load} writes, for the raw clients. */
  private static List<OutboxEvent> events(int n) {
    byte[] payload = "x".repeat(PAYLOAD_BYTES).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    List<OutboxEvent> events = new ArrayList<>(n);
    for (int i = 1; i <= n; i++) {
      events.add(
          OutboxEvent.builder("Order", "agg-" + (i % AGGREGATES), "OrderPlaced")
              .payload(payload, OutboxEvent.JSON)
              .header("k", "v")
              .build());
    }
    return events;
  }

  /** Stops the brokers: the Kafka broker's threads would keep the JVM alive. */
  @Override
  public void close() {
    if (targets == null) {
      return;
    }
    for (BrokerTarget t : targets) {
      t.close();
    }
    targets = null;
  }
}
