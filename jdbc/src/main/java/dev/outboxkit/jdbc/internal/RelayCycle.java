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
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
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
 *       paused.
 * </ul>
 */
public final class RelayCycle {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");
  private static final int ACK_TRIES = 3;

  private final RelaySettings settings;
  private final RelayStore store;
  private final Transport transport;
  private final Backoff retryBackoff;
  private final OutageBreaker breaker;
  private final RelayListener listener;
  private final ExecutorService sender;
  private final String owner;
  private final Duration reclaimEvery;
  private final AtomicLong batches = new AtomicLong();
  private volatile Instant lastReclaim;

  /** Wires one relay's cycle; see {@code OutboxRelay.Builder} for the meaning of each part. */
  public RelayCycle(
      RelaySettings settings,
      RelayStore store,
      Transport transport,
      Backoff retryBackoff,
      OutageBreaker breaker,
      RelayListener listener,
      ExecutorService sender,
      String owner) {
    this.settings = settings;
    this.store = store;
    this.transport = transport;
    this.retryBackoff = retryBackoff;
    this.breaker = breaker;
    this.listener = listener;
    this.sender = sender;
    this.owner = owner;
    Duration half = settings.leaseDuration.dividedBy(2);
    this.reclaimEvery = half.compareTo(Duration.ofSeconds(5)) < 0 ? half : Duration.ofSeconds(5);
  }

  /** The outage breaker, for the relay loop's pauses. */
  public OutageBreaker breaker() {
    return breaker;
  }

  /**
   * Runs one round.
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

    List<Ack> acks = new ArrayList<>(claimed.size());
    List<ClaimedEvent> sendable = new ArrayList<>(claimed.size());
    for (ClaimedEvent c : claimed) {
      if (c.unreadable() != null) {
        log.error(
            "[{}] row seq={} cannot be read and is quarantined: {}",
            settings.name,
            c.seq(),
            c.unreadable());
        acks.add(Ack.dead(c.seq(), Failures.truncate(c.unreadable())));
      } else if (c.expired()) {
        acks.add(Ack.expired(c.seq()));
      } else {
        sendable.add(c);
      }
    }

    long sendStart = System.nanoTime();
    List<SendResult> results;
    boolean interrupted = false;
    try {
      results = send(sendable);
    } catch (InterruptedException e) {
      // Shutting down mid-send: hand the batch back at once rather than after the lease.
      interrupted = true;
      results = new ArrayList<>();
      for (int i = 0; i < sendable.size(); i++) {
        results.add(SendResult.unavailable("relay shut down during send"));
      }
    }
    Duration sendTime = Duration.ofNanos(System.nanoTime() - sendStart);
    results = treatUniformFailureAsOutage(results);

    String outage = null;
    boolean answered = false;
    List<Runnable> notices = new ArrayList<>();
    for (int i = 0; i < sendable.size(); i++) {
      ClaimedEvent c = sendable.get(i);
      SendResult r = results.get(i);
      switch (r.status()) {
        case DELIVERED:
          answered = true;
          acks.add(Ack.published(c.seq()));
          notices.add(() -> listener.published(c.event(), c.attempt(), lag(c.event())));
          break;
        case REJECT:
          answered = true;
          acks.add(dead(c, reason(r), notices));
          break;
        case RETRY:
          if (probing) {
            Duration delay = retryDelay(c, r);
            acks.add(Ack.retry(c.seq(), Micros.of(delay), reason(r), false));
            outage = reason(r);
          } else {
            answered = true;
            acks.add(retryOrDead(c, r, notices));
          }
          break;
        case UNAVAILABLE:
          if (probing) {
            // Hold the probed event back a while (uncharged), so the next probe tries another
            // one: an event that alone looks like an outage must not wedge every probe.
            Duration hold = retryBackoff.cap(c.attempt());
            acks.add(Ack.retry(c.seq(), Micros.of(hold), reason(r), false));
          } else {
            acks.add(Ack.release(c.seq()));
          }
          outage = reason(r);
          break;
        default:
          throw new AssertionError(r.status());
      }
    }
    for (ClaimedEvent c : claimed) {
      if (c.expired()) {
        notices.add(EventMdc.around(c.event(), () -> listener.expired(c.event())));
      }
    }

    long ackStart = System.nanoTime();
    int updated = acknowledge(token, acks);
    Duration ackTime = Duration.ofNanos(System.nanoTime() - ackStart);
    if (updated < acks.size()) {
      int lost = acks.size() - updated;
      log.warn(
          "[{}] lease lost for {} of {} events (another relay took them over after the lease"
              + " expired; they are delivered again by it)",
          settings.name,
          lost,
          acks.size());
      notify(() -> listener.leaseLost(lost));
    }
    notices.forEach(this::notify);
    notify(() -> listener.batchCompleted(claimed.size(), sendTime, ackTime));
    updateBreaker(outage, answered);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    return claimed.size();
  }

  private void reclaimIfDue() throws SQLException {
    Instant now = settings.clock.instant();
    if (lastReclaim == null || !now.isBefore(lastReclaim.plus(reclaimEvery))) {
      lastReclaim = now;
      int reclaimed = store.reclaimExpiredLeases();
      if (reclaimed > 0) {
        log.warn(
            "[{}] recovered {} events whose lease expired (a relay died or stalled mid-batch)",
            settings.name,
            reclaimed);
      }
    }
  }

  private List<SendResult> send(List<ClaimedEvent> sendable) throws InterruptedException {
    if (sendable.isEmpty()) {
      return new ArrayList<>();
    }
    List<OutboxMessage> messages = new ArrayList<>(sendable.size());
    for (ClaimedEvent c : sendable) {
      messages.add(OutboxMessage.of(c.event(), c.attempt()));
    }
    Future<List<SendResult>> future = sender.submit(() -> sendInContext(messages));
    List<SendResult> results;
    try {
      results = future.get(settings.sendTimeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      future.cancel(true);
      log.warn(
          "[{}] transport did not finish a batch of {} within sendTimeout {}; the batch will be"
              + " retried",
          settings.name,
          messages.size(),
          settings.sendTimeout);
      return uniform(
          messages.size(), SendResult.unavailable("send timed out after " + settings.sendTimeout));
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      // The transport's sendBatch threw: by contract that is a retry of every message.
      return uniform(messages.size(), SendResult.retry(Failures.describe(e.getCause()), null));
    }
    if (results == null || results.size() != messages.size()) {
      String reason =
          "transport bug: sendBatch returned "
              + (results == null ? "null" : results.size() + " results")
              + " for "
              + messages.size()
              + " messages";
      log.error("[{}] {}", settings.name, reason);
      return uniform(messages.size(), SendResult.retry(reason, null));
    }
    List<SendResult> checked = new ArrayList<>(results.size());
    for (SendResult r : results) {
      checked.add(r != null ? r : SendResult.retry("transport bug: null result", null));
    }
    return checked;
  }

  /**
   * Calls the transport on the sender thread with each event's identifiers in the MDC where there
   * is one current event: a batch of one, or every event when sending individually (then each goes
   * as a batch of one, so the transport's own handling of {@code send} applies unchanged).
   */
  private List<SendResult> sendInContext(List<OutboxMessage> messages) {
    if (messages.size() > 1 && !settings.sendIndividually) {
      return transport.sendBatch(messages);
    }
    List<SendResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage m : messages) {
      if (Thread.currentThread().isInterrupted()) {
        results.add(SendResult.unavailable("relay shut down during send"));
        continue;
      }
      EventMdc scope = EventMdc.of(m.event());
      try {
        List<SendResult> one = transport.sendBatch(List.of(m));
        results.add(one == null || one.size() != 1 ? null : one.get(0));
      } catch (RuntimeException e) {
        results.add(SendResult.retry(Failures.describe(e), null));
      } finally {
        scope.close();
      }
    }
    return results;
  }

  private static List<SendResult> uniform(int size, SendResult result) {
    List<SendResult> results = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      results.add(result);
    }
    return results;
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
    return uniform(results.size(), SendResult.unavailable(first.reason().orElse("")));
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

  private void notify(Runnable notice) {
    try {
      notice.run();
    } catch (RuntimeException e) {
      log.warn("[{}] relay listener failed: {}", settings.name, Failures.describe(e));
    }
  }
}
