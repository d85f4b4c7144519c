package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.RelayListener;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One round of the relay protocol: claim a batch (one short transaction), send it outside any
 * transaction with a time limit, then record every outcome in one fenced transaction.
 *
 * <p>How results become table states:
 *
 * <ul>
 *   <li>delivered: PUBLISHED (or deleted);
 *   <li>reject, or retry once the attempt budget is spent: DEAD with the reason;
 *   <li>retry: PENDING again after the transport's delay or the jittered backoff; charged;
 *   <li>unavailable: PENDING again at once, not charged, and the outage breaker trips. A batch of
 *       two or more whose every result is a retry with one and the same reason (a transport that
 *       does not classify outages), and a send that overran its time limit, count as unavailable
 *       too, so an outage never burns attempt budgets;
 *   <li>while the breaker probes with single events, a retry or unavailable is not charged but
 *       delays that event, so the next probe tries another one: no single event can keep the relay
 *       paused;
 *   <li>a send cut off by its time limit or by close: what the transport confirmed is PUBLISHED,
 *       the rest PENDING again at once, not charged (see {@link Sender}).
 * </ul>
 *
 * <p>{@code attempts} counts only charged failures; the claim itself charges nothing, and a lease
 * that ran out (a relay that died or stalled, maybe after delivering) is counted apart in {@code
 * lease_losses}, which quarantines an event only after {@code LEASE_LOSSES_BEFORE_DEAD} of them.
 */
public final class RelayCycle {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");
  private static final int ACK_TRIES = 3;

  private final RelaySettings settings;
  private final RelayStore store;
  private final Backoff retryBackoff;
  private final OutageBreaker breaker;
  private final DestinationOutages destinations;
  private final RelayListener listener;
  private final Sender sender;
  private final BooleanSupplier stopping;
  private final String owner;
  private final Duration reclaimEvery;
  private final AtomicLong batches = new AtomicLong();
  private volatile Instant lastReclaim;

  /**
   * Wires one relay's cycle; see {@code OutboxRelay.Builder} for the meaning of each part.
   *
   * @param stopping true once the relay is closing: a batch claimed then is handed back unsent
   */
  public RelayCycle(
      RelaySettings settings,
      RelayStore store,
      Transport transport,
      Backoff retryBackoff,
      OutageBreaker breaker,
      DestinationOutages destinations,
      RelayListener listener,
      ExecutorService sendPool,
      BooleanSupplier stopping,
      String owner) {
    this.settings = settings;
    this.store = store;
    this.retryBackoff = retryBackoff;
    this.breaker = breaker;
    this.destinations = destinations;
    this.listener = listener;
    this.sender =
        new Sender(
            settings, transport, sendPool, stuck -> notify(() -> listener.sendAbandoned(stuck)));
    this.stopping = stopping;
    this.owner = owner;
    Duration half = settings.leaseDuration.dividedBy(2);
    this.reclaimEvery = half.compareTo(Duration.ofSeconds(5)) < 0 ? half : Duration.ofSeconds(5);
  }

  /** Send threads abandoned in a transport that ignored their interrupt, still stuck there. */
  public int abandonedSends() {
    return sender.abandoned();
  }

  /** The outage breaker, for the relay loop's pauses. */
  public OutageBreaker breaker() {
    return breaker;
  }

  /**
   * Runs one round. Once rows are claimed, every way out of the round — results, a timeout, the
   * relay closing, an error of any kind — records an outcome for each of them (at worst: handed
   * back to PENDING uncharged), so no claimed row waits for its lease.
   *
   * @return events claimed (and handled); 0 if none were claimable or the breaker is open
   * @throws SQLException if the claim or the acknowledgement failed; claimed rows then come back
   *     when their lease runs out
   */
  public int runOnce() throws SQLException {
    if (!breaker.pauseLeft().isZero()) {
      return 0;
    }
    reclaimIfDue();
    boolean probing = breaker.probing();
    String token = owner + "/" + batches.incrementAndGet();
    long claimStart = System.nanoTime();
    List<ClaimedEvent> claimed =
        store.claim(
            token, probing ? 1 : settings.batchSize, settings.ordered, settings.leaseDuration);
    if (claimed.isEmpty()) {
      return 0;
    }
    Duration claimTime = Duration.ofNanos(System.nanoTime() - claimStart);
    notify(() -> listener.batchClaimed(claimed.size(), claimTime));
    log.debug(
        "[{}] claimed {} events in {} ms", settings.name, claimed.size(), claimTime.toMillis());

    Round round;
    Throwable failure = null;
    try {
      round = handle(claimed, probing);
    } catch (RuntimeException | Error e) {
      failure = e;
      log.error(
          "[{}] failed to handle a claimed batch of {}; handing it back",
          settings.name,
          claimed.size(),
          e);
      round = Round.handBack(claimed);
    }

    long ackStart = System.nanoTime();
    int updated = acknowledge(token, round.acks);
    Duration ackTime = Duration.ofNanos(System.nanoTime() - ackStart);
    if (updated < round.acks.size()) {
      int lost = round.acks.size() - updated;
      log.warn(
          "[{}] lease lost for {} of {} events (another relay took them over after the lease"
              + " expired; they are delivered again by it)",
          settings.name,
          lost,
          round.acks.size());
      notify(() -> listener.leaseLost(lost));
    }
    round.notices.forEach(this::notify);
    Duration sendTime = round.sendTime;
    notify(() -> listener.batchCompleted(claimed.size(), sendTime, ackTime));
    if (round.interrupted) {
      Thread.currentThread().interrupt(); // closing: the outage verdict does not matter
    } else {
      updateBreaker(round.outage, round.answered);
    }
    if (failure instanceof Error) {
      throw (Error) failure;
    }
    if (failure != null) {
      throw (RuntimeException) failure;
    }
    return claimed.size();
  }

  /** What one round decided: the acknowledgements, the listener calls, and the outage verdict. */
  private static final class Round {
    final List<Ack> acks;
    final List<Runnable> notices = new ArrayList<>();
    Duration sendTime = Duration.ZERO;
    String outage;
    boolean answered;
    boolean interrupted;

    Round(int size) {
      this.acks = new ArrayList<>(size);
    }

    static Round handBack(List<ClaimedEvent> claimed) {
      Round r = new Round(claimed.size());
      for (ClaimedEvent c : claimed) {
        r.acks.add(Ack.release(c.seq()));
      }
      return r;
    }
  }

  private Round handle(List<ClaimedEvent> claimed, boolean probing) {
    Round round = new Round(claimed.size());
    List<ClaimedEvent> sendable = new ArrayList<>(claimed.size());
    for (ClaimedEvent c : claimed) {
      if (c.unreadable() != null) {
        log.error(
            "[{}] row seq={} cannot be read and is quarantined: {}",
            settings.name,
            c.seq(),
            c.unreadable());
        round.acks.add(Ack.dead(c.seq(), Failures.truncate(c.unreadable())));
      } else if (c.expired()) {
        round.acks.add(Ack.expired(c.seq()));
        round.notices.add(EventMdc.around(c.event(), () -> listener.expired(c.event())));
      } else {
        sendable.add(c);
      }
    }
    if (sendable.isEmpty()) {
      return round;
    }
    if (stopping.getAsBoolean()) {
      // Closed while claiming: nothing is sent, everything goes straight back.
      for (ClaimedEvent c : sendable) {
        round.acks.add(Ack.release(c.seq()));
      }
      round.interrupted = true;
      return round;
    }

    List<OutboxMessage> messages = new ArrayList<>(sendable.size());
    for (ClaimedEvent c : sendable) {
      messages.add(OutboxMessage.of(c.event(), c.attempt()));
    }
    long sendStart = System.nanoTime();
    Sender.Outcome outcome = sender.send(messages);
    round.sendTime = Duration.ofNanos(System.nanoTime() - sendStart);
    round.interrupted = outcome.interrupted;
    List<SendResult> results = treatUniformFailureAsOutage(outcome.results);
    Map<String, DestinationOutages.Trip> downThisRound = new LinkedHashMap<>();
    Map<String, Integer> heldPerDestination = new LinkedHashMap<>();

    for (int i = 0; i < sendable.size(); i++) {
      ClaimedEvent c = sendable.get(i);
      SendResult r = results.get(i);
      switch (r.status()) {
        case DELIVERED:
          round.answered = true;
          round.acks.add(Ack.published(c.seq()));
          round.notices.add(() -> listener.published(c.event(), c.attempt(), lag(c.event())));
          break;
        case REJECT:
          round.answered = true;
          round.acks.add(dead(c, reason(r), round.notices));
          break;
        case RETRY:
          if (probing) {
            Duration delay = retryDelay(c, r);
            round.acks.add(Ack.retry(c.seq(), Micros.of(delay), reason(r), false));
            round.outage = reason(r);
          } else {
            round.answered = true;
            round.acks.add(retryOrDead(c, r, round.notices));
          }
          break;
        case UNAVAILABLE:
          String scope = r.scope().orElse(null);
          if (scope != null && !outcome.interrupted && !outcome.timedOut) {
            // One destination is down, not the transport: hold back this event only, uncharged,
            // and go on with the others. The transport answered, so it is not an outage.
            // One hold per destination and round: its events come back together, and are
            // recorded by one statement instead of one each.
            DestinationOutages.Trip trip = downThisRound.computeIfAbsent(scope, destinations::trip);
            round.acks.add(Ack.hold(c.seq(), Micros.of(trip.hold), reason(r)));
            heldPerDestination.merge(scope, 1, Integer::sum);
            round.answered = true;
            break;
          }
          if (probing && !outcome.interrupted) {
            // Hold the probed event back a while (uncharged), so the next probe tries another
            // one: an event that alone looks like an outage must not wedge every probe.
            Duration hold = retryBackoff.cap(c.attempt());
            round.acks.add(Ack.retry(c.seq(), Micros.of(hold), reason(r), false));
          } else {
            round.acks.add(Ack.release(c.seq()));
          }
          round.outage = reason(r);
          break;
        default:
          throw new AssertionError(r.status());
      }
    }
    downThisRound.forEach(
        (scope, trip) -> reportDestinationDown(scope, trip, heldPerDestination.get(scope), round));
    return round;
  }

  private void reportDestinationDown(
      String scope, DestinationOutages.Trip trip, int held, Round round) {
    if (trip.started) {
      log.warn(
          "[{}] {} unavailable: holding back its {} events up to {} ms (uncharged, and again while"
              + " it stays down); other destinations go on",
          settings.name,
          scope,
          held,
          trip.cap.toMillis());
    } else {
      log.debug(
          "[{}] {} still unavailable: {} events held back up to {} ms",
          settings.name,
          scope,
          held,
          trip.cap.toMillis());
    }
    round.notices.add(() -> listener.destinationUnavailable(scope, held, trip.cap));
  }

  private void reclaimIfDue() throws SQLException {
    Instant now = settings.clock.instant();
    if (lastReclaim == null || !now.isBefore(lastReclaim.plus(reclaimEvery))) {
      lastReclaim = now;
      RelayStore.Reclaimed reclaimed = store.reclaimExpiredLeases(settings.leaseLossesBeforeDead);
      if (reclaimed.pending > 0) {
        log.warn(
            "[{}] recovered {} events whose lease expired (a relay died or stalled mid-batch);"
                + " no attempt is charged for it",
            settings.name,
            reclaimed.pending);
      }
      if (reclaimed.dead > 0) {
        log.warn(
            "[{}] quarantined {} events as DEAD: their lease expired {} times without an outcome,"
                + " so each is the likely reason the relays holding it died or hung",
            settings.name,
            reclaimed.dead,
            settings.leaseLossesBeforeDead);
      }
    }
  }

  private static List<SendResult> treatUniformFailureAsOutage(List<SendResult> results) {
    if (results.size() < 2) {
      return results;
    }
    SendResult first = results.get(0);
    if (first.status() != SendResult.Status.RETRY) {
      return results;
    }
    for (SendResult r : results) {
      if (r.status() != SendResult.Status.RETRY || !r.reason().equals(first.reason())) {
        return results;
      }
    }
    return Sender.uniform(results.size(), SendResult.unavailable(first.reason().orElse("")));
  }

  private Ack retryOrDead(ClaimedEvent c, SendResult r, List<Runnable> notices) {
    String reason = reason(r);
    if (c.attempt() >= settings.maxAttempts) {
      return dead(c, "gave up after " + c.attempt() + " attempts: " + reason, notices);
    }
    Duration delay = retryDelay(c, r);
    notices.add(
        EventMdc.around(c.event(), () -> listener.retried(c.event(), c.attempt(), reason, delay)));
    if (log.isDebugEnabled()) {
      EventMdc.around(
              c.event(),
              () ->
                  log.debug(
                      "[{}] event {} ({}/{}) attempt {} failed, retry in {} ms: {}",
                      settings.name,
                      c.event().id(),
                      c.event().aggregateType(),
                      c.event().aggregateId(),
                      c.attempt(),
                      delay.toMillis(),
                      reason))
          .run();
    }
    return Ack.retry(c.seq(), Micros.of(delay), reason, true);
  }

  private Duration retryDelay(ClaimedEvent c, SendResult r) {
    Duration asked = r.retryAfter().orElse(null);
    if (asked == null) {
      return retryBackoff.delay(c.attempt());
    }
    return asked.compareTo(settings.maxRetryAfter) > 0 ? settings.maxRetryAfter : asked;
  }

  private Ack dead(ClaimedEvent c, String reason, List<Runnable> notices) {
    String recorded = Failures.truncate(reason);
    EventMdc.around(
            c.event(),
            () ->
                log.warn(
                    "[{}] event {} ({}/{}, type {}) quarantined as DEAD after attempt {}: {}",
                    settings.name,
                    c.event().id(),
                    c.event().aggregateType(),
                    c.event().aggregateId(),
                    c.event().eventType(),
                    c.attempt(),
                    recorded))
        .run();
    notices.add(EventMdc.around(c.event(), () -> listener.dead(c.event(), c.attempt(), recorded)));
    return Ack.dead(c.seq(), recorded);
  }

  private int acknowledge(String token, List<Ack> acks) throws SQLException {
    SQLException failure = null;
    for (int attempt = 1; attempt <= ACK_TRIES; attempt++) {
      try {
        return store.acknowledge(token, acks, settings.deleteOnPublish);
      } catch (SQLException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
        log.warn(
            "[{}] recording the outcome of {} events failed (try {} of {}): {}",
            settings.name,
            acks.size(),
            attempt,
            ACK_TRIES,
            e.getMessage());
        if (attempt < ACK_TRIES && !sleep(Duration.ofMillis(200L * attempt))) {
          break;
        }
      }
    }
    throw failure;
  }

  private void updateBreaker(String outage, boolean answered) {
    if (outage != null && !answered) {
      Duration pause = breaker.trip();
      log.warn(
          "[{}] transport unavailable ({}); pausing {} ms, then probing with one event",
          settings.name,
          outage,
          pause.toMillis());
      String reason = outage;
      notify(() -> listener.transportUnavailable(reason, pause));
    } else if (answered) {
      Duration outageTime = breaker.recovered();
      if (outageTime != null) {
        log.info("[{}] transport recovered after {} ms", settings.name, outageTime.toMillis());
        notify(() -> listener.transportRecovered(outageTime));
      }
    }
  }

  private Duration lag(OutboxEvent event) {
    return Duration.between(event.occurredAt(), settings.clock.instant());
  }

  private static String reason(SendResult r) {
    return Failures.truncate(r.reason().orElse("(no reason given)"));
  }

  private static boolean sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Runs a listener call; whatever it throws, an Error too, is logged and goes no further. */
  private void notify(Runnable notice) {
    try {
      notice.run();
    } catch (Throwable t) {
      log.warn("[{}] relay listener failed: {}", settings.name, Failures.describe(t));
    }
  }
}
