package dev.outboxkit.faults;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RelayListener;
import dev.outboxkit.kafka.KafkaTransport;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Child JVM of the relay-kill and clock-skew scenarios: one {@link OutboxRelay} with its own pool
 * and its own {@link KafkaTransport}, wrapped in a transport that reports what happens to each
 * batch, so the parent can SIGKILL it at chosen moments and later explain every duplicate.
 *
 * <p>Protocol. Claims and transport calls are numbered apart ({@code <b>} and {@code <s>}): the
 * relay claims the next batch while one is being sent, and may send one batch in several calls.
 *
 * <ul>
 *   <li>{@code READY} once the relay runs;
 *   <li>{@code CLAIMED <b> <size> <ms>} after a claim committed, with how long its transaction
 *       took;
 *   <li>{@code RETRY_ASKED <s> <ids>} events answered retry on purpose, never sent;
 *   <li>{@code SENDING <s> <ids>} right before the call goes to Kafka;
 *   <li>{@code CUT_OFF <s> <ids>} if the relay interrupted the call during {@code --send-delay-ms},
 *       before anything was sent (answered unavailable, never sent);
 *   <li>{@code ACKED_BY_BROKER <s> <ids>} right after Kafka acknowledged these (before the relay
 *       records them in the database);
 *   <li>{@code DB_ACKED <b> <ids>} after the outcome of claim {@code b} was committed, with the ids
 *       it recorded PUBLISHED;
 *   <li>{@code LEASE_LOST <b> <n>} if the acknowledgement found rows taken over;
 *   <li>{@code PAUSED <phase> <b or s>} at the kill point chosen by {@code --kill-phase} and {@code
 *       --kill-batch}: {@code AFTER_CLAIM} (the b-th claim), {@code MID_SEND} (half of the s-th
 *       call acknowledged by Kafka, the other half not sent), {@code AFTER_BROKER_ACK}.
 * </ul>
 *
 * <p>Other options: {@code --bootstrap}, {@code --name}, {@code --lease-ms}, {@code
 * --send-timeout-ms} (relay; the Kafka transport's timeouts nest below it, see {@link
 * KafkaTransports}), {@code --batch}, {@code --clock-offset-s} (the relay's injected clock runs
 * that far from the host's), {@code --retry-percent} and {@code --retry-after-ms} (that share of
 * events, chosen by id, is answered retry-after on its first attempt), {@code --send-delay-ms}
 * (extra latency per batch, as a remote broker would add; it counts against {@code
 * --send-timeout-ms}, and the Kafka transport's timeouts nest below what it leaves).
 */
public final class RelayChild {
  private RelayChild() {}

  public static void main(String[] args) throws Exception {
    Child.exitWithParent();
    Map<String, String> o = Child.options(args);
    DbCoordinates db = DbCoordinates.from(o);
    String name = Child.required(o, "name");
    Duration lease = Duration.ofMillis(Long.parseLong(o.getOrDefault("lease-ms", "8000")));
    Duration sendTimeout =
        Duration.ofMillis(Long.parseLong(o.getOrDefault("send-timeout-ms", "3000")));
    Duration clockOffset =
        Duration.ofSeconds(Long.parseLong(o.getOrDefault("clock-offset-s", "0")));
    Observer observer =
        new Observer(
            o.getOrDefault("kill-phase", "NONE"),
            Integer.parseInt(o.getOrDefault("kill-batch", "-1")),
            Integer.parseInt(o.getOrDefault("retry-percent", "0")),
            Duration.ofMillis(Long.parseLong(o.getOrDefault("retry-after-ms", "3000"))),
            Long.parseLong(o.getOrDefault("send-delay-ms", "0")));

    // The extra latency is spent inside the relay's time limit, so Kafka's own timeouts nest below
    // what it leaves: the relay never abandons a call Kafka may still acknowledge.
    KafkaTransport kafka =
        KafkaTransports.create(
            Child.required(o, "bootstrap"), name, sendTimeout.minus(observer.sendDelay()));
    observer.delegate = kafka;
    HikariDataSource pool = db.pool("relay-" + name, 3, o.get("app-name"));
    OutboxRelay relay =
        OutboxRelay.builder(pool, observer)
            .name(name)
            .batchSize(Integer.parseInt(o.getOrDefault("batch", "200")))
            .pollInterval(Duration.ofMillis(100))
            .leaseDuration(lease)
            .sendTimeout(sendTimeout)
            .outageBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
            .shutdownTimeout(Duration.ofSeconds(5))
            .clock(Clock.offset(Clock.systemUTC(), clockOffset))
            .listener(observer)
            .build();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  relay.close();
                  kafka.close();
                  pool.close();
                  Child.emit("STOPPED");
                }));
    relay.start();
    Child.emit("READY");
    while (true) {
      Thread.sleep(60_000);
    }
  }

  /** Reports every step of every batch, and pauses where the parent wants to kill. */
  static final class Observer implements Transport, RelayListener {
    private final String killPhase;
    private final int killBatch;
    private final int retryPercent;
    private final Duration retryAfter;
    private final long sendDelayMillis;
    private volatile Transport delegate;
    // Claims and sends count apart: the relay claims the next batch while one is being sent.
    private volatile int batch;
    private volatile int sends;
    // Claimed batches whose outcome is not recorded yet, oldest first: recorded in claim order.
    private final java.util.ArrayDeque<Integer> open = new java.util.ArrayDeque<>();
    private final List<String> published = new ArrayList<>();

    Observer(
        String killPhase,
        int killBatch,
        int retryPercent,
        Duration retryAfter,
        long sendDelayMillis) {
      this.killPhase = killPhase;
      this.killBatch = killBatch;
      this.retryPercent = retryPercent;
      this.retryAfter = retryAfter;
      this.sendDelayMillis = sendDelayMillis;
    }

    @Override
    public void batchClaimed(int size, Duration claimTime) {
      int b = ++batch;
      synchronized (open) {
        open.addLast(b);
      }
      Child.emit("CLAIMED " + b + " " + size + " " + claimTime.toMillis());
      if (killPhase.equals("AFTER_CLAIM") && b == killBatch) {
        Child.pauseForKill("AFTER_CLAIM " + b);
      }
    }

    @Override
    public void batchCompleted(int size, Duration sendTime, Duration ackTime) {
      Integer b;
      synchronized (open) {
        b = open.pollFirst();
      }
      // The ids this acknowledgement recorded PUBLISHED (the listener hears them just before).
      Child.emit("DB_ACKED " + b + " " + String.join(",", published));
      published.clear();
    }

    @Override
    public void published(OutboxEvent event, int attempt, Duration lag) {
      published.add(event.id().toString());
    }

    @Override
    public void leaseLost(int events) {
      Integer b;
      synchronized (open) {
        b = open.peekFirst();
      }
      Child.emit("LEASE_LOST " + b + " " + events);
    }

    @Override
    public SendResult send(OutboxMessage message) {
      return sendBatch(List.of(message)).get(0);
    }

    @Override
    public List<SendResult> sendBatch(List<OutboxMessage> messages) {
      int b = ++sends;
      SendResult[] results = new SendResult[messages.size()];
      List<OutboxMessage> toSend = new ArrayList<>();
      List<Integer> positions = new ArrayList<>();
      List<OutboxMessage> retried = new ArrayList<>();
      for (int i = 0; i < messages.size(); i++) {
        OutboxMessage m = messages.get(i);
        if (m.attempt() == 1 && Math.floorMod(m.event().id().hashCode(), 100) < retryPercent) {
          // A distinct reason per event, so the relay does not take a batch of them for an
          // outage of the transport.
          results[i] = SendResult.retry("asked to retry " + m.event().id(), retryAfter);
          retried.add(m);
        } else {
          toSend.add(m);
          positions.add(i);
        }
      }
      if (!retried.isEmpty()) {
        Child.emit("RETRY_ASKED " + b + " " + ids(retried));
      }
      if (!toSend.isEmpty()) {
        if (sendDelayMillis > 0 && !sleep(sendDelayMillis)) {
          // Cut off by the relay's time limit (or its close) before anything went out: the
          // relay hands these back, so sending them now would only make duplicates.
          Child.emit("CUT_OFF " + b + " " + ids(toSend));
          for (int position : positions) {
            results[position] = SendResult.unavailable("interrupted before sending");
          }
          return List.of(results);
        }
        Child.emit("SENDING " + b + " " + ids(toSend));
        List<SendResult> sent;
        if (killPhase.equals("MID_SEND") && b == killBatch && toSend.size() > 1) {
          List<OutboxMessage> firstHalf = toSend.subList(0, toSend.size() / 2);
          List<SendResult> halfResults = delegate.sendBatch(firstHalf);
          Child.emit("ACKED_BY_BROKER " + b + " " + delivered(firstHalf, halfResults));
          Child.pauseForKill("MID_SEND " + b);
          throw new AssertionError("unreachable");
        }
        sent = delegate.sendBatch(toSend);
        Child.emit("ACKED_BY_BROKER " + b + " " + delivered(toSend, sent));
        if (killPhase.equals("AFTER_BROKER_ACK") && b == killBatch) {
          Child.pauseForKill("AFTER_BROKER_ACK " + b);
        }
        for (int i = 0; i < sent.size(); i++) {
          results[positions.get(i)] = sent.get(i);
        }
      }
      return List.of(results);
    }

    @Override
    public void close() {
      // the Kafka transport is closed by the shutdown hook
    }

    private static String ids(List<OutboxMessage> messages) {
      return messages.stream().map(m -> m.event().id().toString()).collect(Collectors.joining(","));
    }

    private static String delivered(List<OutboxMessage> messages, List<SendResult> results) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < messages.size(); i++) {
        if (results.get(i).isDelivered()) {
          ids.add(messages.get(i).event().id().toString());
        }
      }
      return String.join(",", ids);
    }

    Duration sendDelay() {
      return Duration.ofMillis(sendDelayMillis);
    }

    /** Sleeps; false if interrupted (the flag is kept). */
    private static boolean sleep(long millis) {
      try {
        Thread.sleep(millis);
        return true;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
  }
}
