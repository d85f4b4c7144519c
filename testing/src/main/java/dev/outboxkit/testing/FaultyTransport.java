package dev.outboxkit.testing;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Wraps any transport and makes some sends fail, so a test can watch the relay (and the code around
 * it) cope: the n-th message, every n-th, or a fraction chosen by a seeded random, answered retry,
 * reject or unavailable, thrown at, or left hanging. Every other message goes to the wrapped
 * transport, in its batch order. Thread-safe.
 *
 * <pre>{@code
 * FaultyTransport faulty =
 *     FaultyTransport.wrap(new RecordingTransport())
 *         .failNth(3, Fault.retry("injected"))
 *         .failFraction(0.1, Fault.unavailable("broker down"))
 *         .seed(42)
 *         .build();
 * }</pre>
 *
 * <p>Messages are counted as they arrive, one by one, across calls (1 is the first). A message
 * takes the first rule that picks it. If the wrapped transport keeps order within a batch ({@link
 * Transport#keepsOrderWithinBatch()}), so does the wrapper: after a message it failed, the later
 * messages of that aggregate in the same call are answered retry, not sent. {@link
 * #classifiesFailures()} is the wrapped transport's.
 */
public final class FaultyTransport implements Transport {

  /** What a picked message gets instead of being sent. */
  public static final class Fault {
    private final SendResult result;
    private final RuntimeException thrown;
    private final Duration hang;

    private Fault(SendResult result, RuntimeException thrown, Duration hang) {
      this.result = result;
      this.thrown = thrown;
      this.hang = hang;
    }

    /**
     * Answered {@link SendResult#retry(String, Duration)} with this reason and no delay.
     *
     * @param reason the failure's reason
     * @return the fault
     */
    public static Fault retry(String reason) {
      return new Fault(SendResult.retry(reason, null), null, null);
    }

    /**
     * Answered {@link SendResult#reject(String)}: the event goes DEAD.
     *
     * @param reason the refusal's reason
     * @return the fault
     */
    public static Fault reject(String reason) {
      return new Fault(SendResult.reject(reason), null, null);
    }

    /**
     * Answered {@link SendResult#unavailable(String)}: an outage of the whole transport.
     *
     * @param reason the outage's reason
     * @return the fault
     */
    public static Fault unavailable(String reason) {
      return new Fault(SendResult.unavailable(reason), null, null);
    }

    /**
     * Answered {@link SendResult#unavailable(String, String)}: one destination is down.
     *
     * @param reason the outage's reason
     * @param scope the destination that is down
     * @return the fault
     */
    public static Fault unavailable(String reason, String scope) {
      return new Fault(SendResult.unavailable(reason, scope), null, null);
    }

    /**
     * The call that holds the message throws this exception (before anything of the call is sent),
     * as a broken client would.
     *
     * @param thrown what the call throws
     * @return the fault
     */
    public static Fault exception(RuntimeException thrown) {
      return new Fault(null, Objects.requireNonNull(thrown, "thrown"), null);
    }

    /**
     * The call blocks for {@code duration} (or until its thread is interrupted, which a relay does
     * at its send timeout or close), then the message is answered unavailable.
     *
     * @param duration how long the call blocks at most
     * @return the fault
     */
    public static Fault hang(Duration duration) {
      Objects.requireNonNull(duration, "duration");
      return new Fault(SendResult.unavailable("injected hang ended"), null, duration);
    }

    @Override
    public String toString() {
      return thrown != null
          ? "exception " + thrown
          : hang != null ? "hang " + hang : result.toString();
    }
  }

  /** Picks messages by their number (1 = the first message ever sent) or their event. */
  private interface Pick {
    boolean picks(long number, OutboxEvent event, Random random);
  }

  private static final class Rule {
    final Pick pick;
    final Fault fault;

    Rule(Pick pick, Fault fault) {
      this.pick = pick;
      this.fault = fault;
    }
  }

  private final Transport wrapped;
  private final List<Rule> rules;
  private final Random random;
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong injected = new AtomicLong();

  private FaultyTransport(Builder b) {
    this.wrapped = b.wrapped;
    this.rules = List.copyOf(b.rules);
    this.random = new Random(b.seed);
  }

  /**
   * Starts wrapping a transport.
   *
   * @param transport the transport that sends what no rule picks
   * @return a builder without rules (everything passes through)
   */
  public static Builder wrap(Transport transport) {
    return new Builder(Objects.requireNonNull(transport, "transport"));
  }

  /** {@return how many messages were handed to this transport so far} */
  public long messages() {
    return sent.get();
  }

  /** {@return how many of them got a fault instead of being sent} */
  public long faultsInjected() {
    return injected.get();
  }

  @Override
  public SendResult send(OutboxMessage message) {
    return sendBatch(List.of(message)).get(0);
  }

  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    int n = batch.size();
    Fault[] faults = new Fault[n];
    synchronized (random) {
      for (int i = 0; i < n; i++) {
        long number = sent.incrementAndGet();
        for (Rule r : rules) {
          if (r.pick.picks(number, batch.get(i).event(), random)) {
            faults[i] = r.fault;
            injected.incrementAndGet();
            break;
          }
        }
      }
    }
    SendResult[] results = new SendResult[n];
    List<Integer> passed = new ArrayList<>(n);
    Set<String> stopped = new HashSet<>();
    boolean keepsOrder = wrapped.keepsOrderWithinBatch();
    for (int i = 0; i < n; i++) {
      Fault f = faults[i];
      if (f != null && f.thrown != null) {
        throw f.thrown;
      }
      String aggregate = aggregate(batch.get(i).event());
      if (keepsOrder && stopped.contains(aggregate)) {
        results[i] = SendResult.retry("not sent: an earlier event of its aggregate failed", null);
      } else if (f == null) {
        passed.add(i);
      } else {
        if (f.hang != null) {
          hang(f.hang);
        }
        results[i] = f.result;
        stopped.add(aggregate);
      }
    }
    if (!passed.isEmpty()) {
      List<OutboxMessage> part = new ArrayList<>(passed.size());
      for (int i : passed) {
        part.add(batch.get(i));
      }
      List<SendResult> answered = wrapped.sendBatch(part);
      for (int k = 0; k < passed.size(); k++) {
        results[passed.get(k)] = answered.get(k);
      }
    }
    return List.of(results);
  }

  private static String aggregate(OutboxEvent e) {
    return e.aggregateType() + '\u0000' + e.aggregateId();
  }

  private static void hang(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the caller sees it and returns promptly
    }
  }

  @Override
  public boolean keepsOrderWithinBatch() {
    return wrapped.keepsOrderWithinBatch();
  }

  @Override
  public boolean classifiesFailures() {
    return wrapped.classifiesFailures();
  }

  /** Closes the wrapped transport. */
  @Override
  public void close() {
    wrapped.close();
  }

  @Override
  public String toString() {
    return "FaultyTransport[" + wrapped + ", " + rules.size() + " rules]";
  }

  /** Collects the rules, in the order they are tried. */
  public static final class Builder {
    private final Transport wrapped;
    private final List<Rule> rules = new ArrayList<>();
    private long seed = 42;

    private Builder(Transport wrapped) {
      this.wrapped = wrapped;
    }

    /**
     * The n-th message only (1 is the first).
     *
     * @param n at least 1
     * @param fault what that message gets
     * @return this builder
     */
    public Builder failNth(long n, Fault fault) {
      if (n < 1) {
        throw new OutboxConfigurationException("failNth: n must be at least 1, was " + n);
      }
      return rule((number, e, r) -> number == n, fault);
    }

    /**
     * Every n-th message: the n-th, the 2n-th, and so on.
     *
     * @param n at least 1
     * @param fault what those messages get
     * @return this builder
     */
    public Builder failEvery(long n, Fault fault) {
      if (n < 1) {
        throw new OutboxConfigurationException("failEvery: n must be at least 1, was " + n);
      }
      return rule((number, e, r) -> number % n == 0, fault);
    }

    /**
     * A fraction of the messages, chosen by the seeded random ({@link #seed}).
     *
     * @param fraction 0 to 1
     * @param fault what those messages get
     * @return this builder
     */
    public Builder failFraction(double fraction, Fault fault) {
      if (!(fraction >= 0 && fraction <= 1)) {
        throw new OutboxConfigurationException(
            "failFraction: fraction must be between 0 and 1, was " + fraction);
      }
      return rule((number, e, r) -> r.nextDouble() < fraction, fault);
    }

    /**
     * The messages of events this predicate picks (by type, aggregate, a header...).
     *
     * @param picks true for the events to fail
     * @param fault what their messages get
     * @return this builder
     */
    public Builder failWhen(Predicate<OutboxEvent> picks, Fault fault) {
      Objects.requireNonNull(picks, "picks");
      return rule((number, e, r) -> picks.test(e), fault);
    }

    /**
     * The seed of the random that {@link #failFraction} uses, so a failing run can be repeated.
     *
     * @param seed any value; 42 unless set
     * @return this builder
     */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** {@return the wrapping transport} */
    public FaultyTransport build() {
      return new FaultyTransport(this);
    }

    private Builder rule(Pick pick, Fault fault) {
      rules.add(new Rule(pick, Objects.requireNonNull(fault, "fault")));
      return this;
    }
  }
}
