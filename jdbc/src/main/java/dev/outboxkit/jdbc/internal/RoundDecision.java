package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.internal.LogText;
import dev.outboxkit.jdbc.RelayListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what one round's claimed rows become, from the send results: the acknowledgements, the
 * listener calls and the outage verdict. No I/O besides logging, so every row of the mapping has a
 * unit test ({@code RoundDecisionTest}).
 *
 * <table>
 *   <caption>How a result becomes a table state</caption>
 *   <tr><th>result</th><th>not probing</th><th>probing (one event)</th></tr>
 *   <tr><td>delivered</td><td>PUBLISHED (or deleted)</td><td>the same</td></tr>
 *   <tr><td>reject</td><td>DEAD with the reason</td><td>the same</td></tr>
 *   <tr><td>retry</td><td>PENDING after the transport's delay (capped) or the jittered backoff,
 *       charged; DEAD once the attempt budget is spent</td><td>PENDING after that delay,
 *       uncharged; an outage</td></tr>
 *   <tr><td>uncertain (a retry that may have arrived)</td><td colspan="2">as a retry, and
 *       counted in {@code uncertain_sends}; never taken for an outage by its uniformity</td></tr>
 *   <tr><td>unavailable for a destination (scoped)</td><td colspan="2">PENDING after the
 *       destination's hold, uncharged, one hold per destination and round; the transport
 *       answered, so no outage</td></tr>
 *   <tr><td>unavailable (whole transport)</td><td>PENDING at once, uncharged; an
 *       outage</td><td>PENDING after the backoff cap, uncharged, so the next probe tries another
 *       event; an outage</td></tr>
 *   <tr><td>not confirmed within sendTimeout, or before close</td><td colspan="2">PENDING at
 *       once, uncharged (the sender turned it into an unscoped unavailable)</td></tr>
 * </table>
 *
 * <p>Before that table: an unreadable row is DEAD, an expired one EXPIRED (never sent). For a
 * transport that does not classify its own failures ({@code Transport.classifiesFailures()}), a
 * batch of two or more whose every result is a retry with one reason and no delay counts as
 * unavailable, so an outage never burns attempt budgets; a transport's {@code retryAfter} is always
 * kept.
 *
 * <p>Per-aggregate order: in ordered mode, and for a transport that keeps order within a batch,
 * once an event of an aggregate is not delivered, every later event of that aggregate in the round
 * goes back to PENDING at once, uncharged, whatever the transport answered for it: it was held back
 * (or rolled back) because of the earlier one, not for its own fault. In ordered mode the earlier
 * one, PENDING later or DEAD, keeps it from being claimed before its turn.
 */
final class RoundDecision {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  private final RelaySettings settings;
  private final Backoff retryBackoff;
  private final DestinationOutages destinations;
  private final RelayListener listener;
  private final boolean transportClassifies;
  private final boolean guardOrder;
  private final TransportConduct conduct;

  /**
   * @param transportClassifies the transport answers unavailable for outages itself
   * @param conduct what the transport declared of order, and where a broken promise is reported
   */
  RoundDecision(
      RelaySettings settings,
      Backoff retryBackoff,
      DestinationOutages destinations,
      RelayListener listener,
      boolean transportClassifies,
      TransportConduct conduct) {
    this.settings = settings;
    this.retryBackoff = retryBackoff;
    this.destinations = destinations;
    this.listener = listener;
    this.transportClassifies = transportClassifies;
    this.conduct = conduct;
    this.guardOrder = settings.ordered || conduct.declaredOrder();
  }

  /**
   * What one decision settled: the acknowledgements to record, the listener calls to make once they
   * are committed, and the outage verdict. Immutable; the cycle applies it.
   */
  static final class Decided {
    static final Decided NOTHING = new Decided(List.of(), List.of(), null, false, false);

    final List<Ack> acks;
    final List<Runnable> notices;

    /** The reason of an outage this decision suggests, or null. */
    final String outage;

    /** True when the transport answered for at least one event (it is up). */
    final boolean answered;

    /** True when the send was cut short by the relay closing: the outage verdict does not count. */
    final boolean interrupted;

    private Decided(
        List<Ack> acks,
        List<Runnable> notices,
        String outage,
        boolean answered,
        boolean interrupted) {
      this.acks = Collections.unmodifiableList(acks);
      this.notices = Collections.unmodifiableList(notices);
      this.outage = outage;
      this.answered = answered;
      this.interrupted = interrupted;
    }
  }

  /** A decision while it is being made. */
  private static final class Verdict {
    final List<Ack> acks = new ArrayList<>();
    final List<Runnable> notices = new ArrayList<>();
    String outage;
    boolean answered;
    // Destinations found down, each tripped once per decision, and how many events each held.
    final Map<String, DestinationOutages.Trip> downThisRound = new LinkedHashMap<>();
    final Map<String, Integer> heldPerDestination = new LinkedHashMap<>();

    Decided done(boolean interrupted) {
      return new Decided(acks, notices, outage, answered, interrupted);
    }
  }

  /**
   * A claimed batch's progress through its decisions: which of its rows were sent and which of
   * those are decided, so a round may be decided in parts as its results arrive.
   */
  static final class Round {
    /** The events to send, in claim order; filled by {@link #prepare}. */
    final List<ClaimedEvent> sendable;

    /** What {@link #prepare} settled without a send. */
    Decided prepared = Decided.NOTHING;

    // The transport answered for an event of this round in an earlier decision.
    private boolean answeredBefore;

    // Aggregates with an event not delivered this round: their later events go back.
    private final Set<String> stopped = new HashSet<>();

    // Which sendable rows have been decided; allocated by the first decide.
    private boolean[] decided;
    private int undecided;

    private Round(int size) {
      this.sendable = new ArrayList<>(size);
    }

    /** Whether every sent row has been decided (or nothing was sent). */
    boolean settled() {
      return undecided() == 0;
    }

    /** Sent rows not decided yet. */
    int undecided() {
      return decided == null ? sendable.size() : undecided;
    }
  }

  /** A round that hands every claimed row back, uncharged: the way out of an unexpected error. */
  static Round handBack(List<ClaimedEvent> claimed) {
    Round r = new Round(claimed.size());
    Verdict v = new Verdict();
    for (ClaimedEvent c : claimed) {
      v.acks.add(Ack.release(c.seq()));
    }
    r.prepared = v.done(false);
    return r;
  }

  /**
   * Settles what needs no send: unreadable rows DEAD (and, where order is guarded, their
   * aggregate's later rows back to PENDING), expired rows EXPIRED. The rest is {@link
   * Round#sendable}.
   *
   * @param claimed the claimed rows, in seq order
   */
  Round prepare(List<ClaimedEvent> claimed) {
    Round round = new Round(claimed.size());
    Verdict v = new Verdict();
    for (ClaimedEvent c : claimed) {
      if (guardOrder && round.stopped.contains(c.aggregate())) {
        v.acks.add(Ack.release(c.seq()));
      } else if (c.unreadable() != null) {
        // The reason can quote the row's text (a header name), written by any tool: escaped.
        log.error(
            "[{}] row seq={} cannot be read and is quarantined: {}",
            settings.name,
            c.seq(),
            LogText.escape(c.unreadable()));
        v.acks.add(Ack.dead(c.seq(), Failures.truncate(c.unreadable())));
        round.stopped.add(c.aggregate());
      } else if (c.expired()) {
        v.acks.add(Ack.expired(c.seq()));
        v.notices.add(EventMdc.around(c.event(), () -> listener.expired(c.event())));
      } else {
        round.sendable.add(c);
      }
    }
    round.prepared = v.done(false);
    return round;
  }

  /** The relay closed before sending: every sendable row goes straight back. */
  Decided handBackUnsent(Round round) {
    Verdict v = new Verdict();
    for (ClaimedEvent c : round.sendable) {
      v.acks.add(Ack.release(c.seq()));
    }
    round.decided = new boolean[round.sendable.size()];
    Arrays.fill(round.decided, true);
    round.undecided = 0;
    return v.done(true);
  }

  /**
   * Decides the sent rows from their results.
   *
   * @param round as {@link #prepare} left it
   * @param outcome one result per {@link Round#sendable} row (null: still under way), and how the
   *     send ended; rows decided before are left alone, so a round may be decided in parts as its
   *     results arrive
   * @param probing the outage breaker is probing with this single event
   * @return what this decision settled, to record and apply
   */
  Decided decide(Round round, SendOutcome outcome, boolean probing) {
    List<ClaimedEvent> sent = round.sendable;
    if (round.decided == null) {
      round.decided = new boolean[sent.size()];
      round.undecided = sent.size();
    }
    Verdict v = new Verdict();
    List<Integer> decidable = decidable(round, outcome.results);
    String uniformReason = transportClassifies ? null : uniformRetryReason(outcome, decidable);
    for (int i : decidable) {
      ClaimedEvent c = sent.get(i);
      SendResult r = outcome.results.get(i);
      round.decided[i] = true;
      round.undecided--;
      if (guardOrder && round.stopped.contains(c.aggregate())) {
        behindAFailure(v, c, r);
        continue;
      }
      if (!r.isDelivered()) {
        round.stopped.add(c.aggregate());
      }
      decideOne(
          v,
          c,
          uniformReason != null ? SendResult.unavailable(uniformReason) : r,
          outcome,
          probing);
    }
    v.downThisRound.forEach(
        (scope, trip) -> reportDestinationDown(scope, trip, v.heldPerDestination.get(scope), v));
    if (round.answeredBefore) {
      // The rest of a batch the transport answered for: its failures are its destinations', not
      // an outage of the transport.
      v.outage = null;
    }
    round.answeredBefore |= v.answered;
    return v.done(outcome.interrupted);
  }

  /** Decides one sent event by its result. */
  private void decideOne(
      Verdict v, ClaimedEvent c, SendResult r, SendOutcome outcome, boolean probing) {
    switch (r.status()) {
      case DELIVERED:
        v.answered = true;
        v.acks.add(Ack.published(c.seq()));
        v.notices.add(() -> listener.published(c.event(), c.attempt(), lag(c.event())));
        break;
      case REJECT:
        v.answered = true;
        v.acks.add(dead(c, reason(r), v.notices));
        break;
      case RETRY:
        if (r.isUncertain()) {
          v.notices.add(
              EventMdc.around(
                  c.event(), () -> listener.uncertain(c.event(), c.attempt(), reason(r))));
        }
        if (probing) {
          Duration delay = retryDelay(c, r);
          v.acks.add(Ack.retry(c.seq(), Micros.of(delay), reason(r), false, r.isUncertain()));
          v.outage = reason(r);
        } else {
          v.answered = true;
          v.acks.add(retryOrDead(c, r, v.notices));
        }
        break;
      case UNAVAILABLE:
        unavailable(v, c, r, outcome, probing);
        break;
      default:
        throw new AssertionError(r.status());
    }
  }

  /** An event the transport or its destination could not take now: held, handed back or probed. */
  private void unavailable(
      Verdict v, ClaimedEvent c, SendResult r, SendOutcome outcome, boolean probing) {
    String scope = r.scope().orElse(null);
    if (scope != null && !outcome.interrupted && !outcome.timedOut) {
      // One destination is down, not the transport: hold back this event only, uncharged, and go
      // on with the others. The transport answered, so it is not an outage. One hold per
      // destination and round: its events come back together, and are recorded by one statement
      // instead of one each.
      DestinationOutages.Trip trip = v.downThisRound.computeIfAbsent(scope, destinations::trip);
      v.acks.add(Ack.hold(c.seq(), Micros.of(trip.hold), HoldNote.of(trip.since, reason(r))));
      v.heldPerDestination.merge(scope, 1, Integer::sum);
      v.answered = true;
      return;
    }
    if (probing && !outcome.interrupted) {
      // Hold the probed event back a while (uncharged), so the next probe tries another one: an
      // event that alone looks like an outage must not wedge every probe.
      Duration hold = retryBackoff.cap(c.attempt());
      v.acks.add(Ack.retry(c.seq(), Micros.of(hold), reason(r), false));
    } else {
      v.acks.add(Ack.release(c.seq()));
    }
    v.outage = reason(r);
  }

  /**
   * The rows not yet decided whose result is in and, where order is guarded, every earlier row of
   * whose aggregate in this round was decided: a result applies only once the results before it in
   * its aggregate did, since one of those may still stop it.
   */
  private List<Integer> decidable(Round round, List<SendResult> results) {
    List<Integer> decidable = new ArrayList<>(round.undecided);
    Set<String> waiting = guardOrder ? new HashSet<>() : null;
    for (int i = 0; i < round.sendable.size(); i++) {
      if (round.decided[i]) {
        continue;
      }
      String aggregate = round.sendable.get(i).aggregate();
      if (results.get(i) == null || (guardOrder && waiting.contains(aggregate))) {
        if (guardOrder) {
          waiting.add(aggregate);
        }
        continue;
      }
      decidable.add(i);
    }
    return decidable;
  }

  /**
   * An event after one of its aggregate that was not delivered: back to PENDING, uncharged, unless
   * the transport delivered it anyway (a transport that broke its promise of order, or a relay in
   * ordered mode fed by something else), which is then only recorded as what happened.
   */
  private void behindAFailure(Verdict v, ClaimedEvent c, SendResult r) {
    if (!r.isDelivered()) {
      v.acks.add(Ack.release(c.seq()));
      return;
    }
    v.answered = true;
    v.acks.add(Ack.published(c.seq()));
    v.notices.add(() -> listener.published(c.event(), c.attempt(), lag(c.event())));
    EventMdc.around(
            c.event(),
            () ->
                conduct.brokeOrder(
                    c.event().id().toString(),
                    LogText.escape(c.event().aggregateType())
                        + "/"
                        + LogText.escape(c.event().aggregateId())))
        .run();
  }

  /**
   * The reason, if two or more events were sent and every one came back a retry with that reason
   * and no delay of its own: what a transport that does not classify its failures answers for an
   * outage. Events the sender held back behind another do not count; an uncertain send is the
   * transport's own verdict on one event, never taken for an outage.
   */
  private static String uniformRetryReason(SendOutcome outcome, List<Integer> decidable) {
    String reason = null;
    int sent = 0;
    for (int i : decidable) {
      if (outcome.heldBehind(i)) {
        continue;
      }
      SendResult r = outcome.results.get(i);
      if (r.status() != SendResult.Status.RETRY || r.retryAfter().isPresent() || r.isUncertain()) {
        return null;
      }
      String own = r.reason().orElse("");
      if (reason == null) {
        reason = own;
      } else if (!reason.equals(own)) {
        return null;
      }
      sent++;
    }
    return sent >= 2 ? reason : null;
  }

  private void reportDestinationDown(
      String scope, DestinationOutages.Trip trip, int held, Verdict v) {
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
    v.notices.add(() -> listener.destinationUnavailable(scope, held, trip.cap));
  }

  private Ack retryOrDead(ClaimedEvent c, SendResult r, List<Runnable> notices) {
    String reason = reason(r);
    if (c.attempt() >= settings.maxAttempts) {
      return dead(
          c, "gave up after " + c.attempt() + " attempts: " + reason, r.isUncertain(), notices);
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
                      LogText.escape(c.event().aggregateType()),
                      LogText.escape(c.event().aggregateId()),
                      c.attempt(),
                      delay.toMillis(),
                      LogText.escape(reason)))
          .run();
    }
    return Ack.retry(c.seq(), Micros.of(delay), reason, true, r.isUncertain());
  }

  private Duration retryDelay(ClaimedEvent c, SendResult r) {
    Duration asked = r.retryAfter().orElse(null);
    if (asked == null) {
      return retryBackoff.delay(c.attempt());
    }
    return asked.compareTo(settings.maxRetryAfter) > 0 ? settings.maxRetryAfter : asked;
  }

  private Ack dead(ClaimedEvent c, String reason, List<Runnable> notices) {
    return dead(c, reason, false, notices);
  }

  private Ack dead(ClaimedEvent c, String reason, boolean uncertain, List<Runnable> notices) {
    String recorded = Failures.truncate(reason);
    // Identity fields can come from a row written by another tool, the reason from a transport:
    // escaped, so neither can start a line of its own.
    EventMdc.around(
            c.event(),
            () ->
                log.warn(
                    "[{}] event {} ({}/{}, type {}) quarantined as DEAD after attempt {}: {}",
                    settings.name,
                    c.event().id(),
                    LogText.escape(c.event().aggregateType()),
                    LogText.escape(c.event().aggregateId()),
                    LogText.escape(c.event().eventType()),
                    c.attempt(),
                    LogText.escape(recorded)))
        .run();
    notices.add(EventMdc.around(c.event(), () -> listener.dead(c.event(), c.attempt(), recorded)));
    return Ack.dead(c.seq(), recorded, uncertain);
  }

  private Duration lag(OutboxEvent event) {
    return Duration.between(event.occurredAt(), settings.clock.instant());
  }

  private static String reason(SendResult r) {
    return Failures.truncate(r.reason().orElse("(no reason given)"));
  }
}
