package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.RelayListener;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One round of the relay protocol: claim a batch (one short transaction), send it outside any
 * transaction with a time limit, decide what each result means ({@link RoundDecision}), then record
 * every outcome in one fenced transaction.
 *
 * <p>{@code attempts} counts only charged failures; the claim itself charges nothing, and a lease
 * that ran out (a relay that died or stalled, maybe after delivering) is counted apart in {@code
 * lease_losses}, which quarantines an event only after {@code LEASE_LOSSES_BEFORE_DEAD} of them.
 */
final class RelayCycle {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  /**
   * Events a relay leaves to finish on their own, at most, in batches' worth: beyond, a batch waits
   * for its slowest send again.
   */
  static final int MAX_STRAGGLING_BATCHES = 2;

  private final RelaySettings settings;
  private final RelayStore store;
  private final Claimer claimer;
  private final Recorder recorder;
  private final OutageBreaker breaker;
  private final RelayListener listener;
  private final Sender sender;
  private final RoundDecision decision;
  private final BooleanSupplier stopping;
  private final Stragglers stragglers;
  private final int maxStragglers;

  /**
   * Wires one relay's cycle; see {@code OutboxRelay.Builder} for the meaning of each part.
   *
   * @param stopping true once the relay is closing: a batch claimed then is handed back unsent
   * @param wake called when a send left to finish on its own has a result, so an idle relay records
   *     it soon
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
      String owner,
      Runnable wake) {
    this.settings = settings;
    this.store = store;
    this.breaker = breaker;
    this.listener = listener;
    TransportConduct conduct = TransportConduct.of(settings, transport, listener);
    this.decision =
        new RoundDecision(
            settings,
            retryBackoff,
            destinations,
            listener,
            transport.classifiesFailures(),
            conduct);
    this.sender =
        new Sender(
            settings,
            ConfirmFirst.wrap(transport, settings.name),
            conduct,
            sendPool,
            stuck -> notify(() -> listener.sendAbandoned(stuck)));
    this.stopping = stopping;
    this.claimer = new Claimer(settings, store, owner);
    this.recorder = new Recorder(settings, store, claimer, listener);
    this.stragglers = new Stragglers(sender, decision, wake);
    this.maxStragglers = MAX_STRAGGLING_BATCHES * settings.batchSize;
  }

  /**
   * {@return how many outcomes of each kind this relay recorded so far, indexed by {@link
   * Ack.Kind#ordinal()}}
   */
  public long[] outcomes() {
    return recorder.outcomes();
  }

  /** Send threads abandoned in a transport that ignored their interrupt, still stuck there. */
  public int abandonedSends() {
    return sender.abandoned();
  }

  /**
   * Rounds whose outcome was recorded so far: the relay loop tells by it whether a database failure
   * came after progress (its pause then starts over) or after another failure (the pause grows).
   */
  public long roundsAcknowledged() {
    return recorder.roundsAcknowledged();
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
    claimer.recoverLeasesIfDue();
    Batch batch = claim(breaker.probing());
    if (batch == null) {
      return 0;
    }
    start(batch);
    finish(batch, false);
    acknowledge(batch, false);
    batch.rethrowFailure();
    return batch.claimed.size();
  }

  /**
   * Runs rounds while they come back full, overlapping the database with the transport: round N+1
   * is claimed while round N is sent, and round N acknowledged while round N+1 is sent, in one
   * transaction with the claim of round N+2. Still one send at a time, and ordered mode stays
   * correct: an aggregate with an event IN_FLIGHT is not claimable, so round N+1 never holds a
   * successor of round N's events. A round with runs (few aggregates, each now IN_FLIGHT) claims
   * nothing ahead; its acknowledgement claims the next round instead, which then sees its
   * successors. Round N+1 goes back unsent (uncharged) if round N tripped the outage breaker,
   * failed, or the relay is closing. The same guarantee as {@link #runOnce()}: every claimed row
   * gets an outcome.
   *
   * <p>A round need not wait for its slowest send: once some of its results are in and the rest
   * keep it waiting, the rest are left to finish on their own ({@link Stragglers}, at most {@link
   * #MAX_STRAGGLING_BATCHES} batches' worth of events), and their outcomes ride in a later
   * acknowledgement.
   *
   * @return events handled, in all rounds
   * @throws SQLException as {@link #runOnce()}, once every claimed row got its outcome
   */
  public int runWhileFull() throws SQLException {
    Batch current = claimFirst();
    if (current == null) {
      return 0;
    }
    Batch ahead = null; // claimed in the last acknowledgement's transaction, not yet started
    boolean aheadTried = false; // that transaction claimed, maybe nothing
    int total = 0;
    while (true) {
      Throwable claimFailure = null;
      try {
        // Here, as the current batch's send begins, its lease is fresh: the recovery of expired
        // leases must never meet this relay's own rows still being sent or waiting to be.
        claimer.recoverLeasesIfDue();
        if (!aheadTried && claimsAhead(current)) {
          ahead = claim(false);
        }
      } catch (SQLException | RuntimeException | Error e) {
        claimFailure = e; // thrown once the batch in flight has its outcome
      }
      finish(current, true);
      Pipeline.Observed seen = observe(current, ahead, claimFailure);
      Pipeline.Plan plan = Pipeline.afterSend(seen);
      if (ahead != null) {
        if (plan.sendAhead) {
          start(ahead);
        } else {
          ahead.begin(RoundDecision.handBack(ahead.claimed));
        }
      }
      Batch claimed = acknowledgeSettlingAhead(current, plan.claimWithAck, ahead);
      total += current.claimed.size();
      boolean failed = current.failure != null || claimFailure != null;
      switch (Pipeline.afterAck(failed, seen, plan, claimed != null)) {
        case FAIL:
          throw failure(current, ahead, claimFailure);
        case DONE:
          return total;
        case HAND_BACK_AHEAD:
          acknowledge(ahead, false); // the relay pauses, stops, or claims anew
          return total;
        case SEND_CLAIMED:
          current = claimed; // a round after runs, claimed as they were acknowledged
          start(current);
          aheadTried = false;
          break;
        case SEND_AHEAD:
          current = ahead;
          ahead = claimed;
          aheadTried = plan.claimWithAck;
          break;
        default:
          throw new AssertionError();
      }
    }
  }

  /**
   * The pipeline's first batch, claimed and started after recording what stragglers brought; null
   * if the transport is paused for an outage or nothing is claimable.
   */
  private Batch claimFirst() throws SQLException {
    settleStragglers();
    if (!breaker.pauseLeft().isZero()) {
      return null;
    }
    claimer.recoverLeasesIfDue();
    Batch first = claim(breaker.probing());
    if (first != null) {
      start(first);
    }
    return first;
  }

  /** What the pipeline decides by, once the batch in flight has its results. */
  private Pipeline.Observed observe(Batch current, Batch ahead, Throwable claimFailure) {
    boolean healthy =
        current.failure == null
            && !current.interrupted
            && breaker.pauseLeft().isZero()
            && !breaker.probing();
    return new Pipeline.Observed(
        ahead != null,
        healthy,
        ahead != null && claimer.leaseCovers(ahead.claimedAt),
        ahead != null && claimsAhead(ahead),
        claimer.followsRuns(current.claimed, current.probing),
        claimFailure != null,
        stopping.getAsBoolean());
  }

  /**
   * Acknowledges the batch that was in flight; if that fails, settles the batch claimed ahead too
   * (sent or handed back) before the failure goes up, so every claimed row gets its outcome.
   */
  private Batch acknowledgeSettlingAhead(Batch current, boolean claimNext, Batch ahead)
      throws SQLException {
    try {
      return acknowledge(current, claimNext);
    } catch (SQLException e) {
      if (ahead != null) {
        finish(ahead, false);
        try {
          acknowledge(ahead, false);
        } catch (SQLException again) {
          e.addSuppressed(again);
        }
      }
      throw e;
    }
  }

  /**
   * After a round or the claim ahead failed: settles the batch claimed ahead, then throws the
   * round's failure, else returns the claim's (an unchecked one is thrown as it is).
   */
  private SQLException failure(Batch current, Batch ahead, Throwable claimFailure)
      throws SQLException {
    if (ahead != null) {
      finish(ahead, false);
      acknowledge(ahead, false);
    }
    current.rethrowFailure();
    return rethrowable(claimFailure);
  }

  /** A failure caught while claiming ahead, to throw as it is. */
  private static SQLException rethrowable(Throwable claimFailure) {
    if (claimFailure instanceof SQLException) {
      return (SQLException) claimFailure;
    }
    if (claimFailure instanceof Error) {
      throw (Error) claimFailure;
    }
    throw (RuntimeException) claimFailure;
  }

  /** Whether the next round is claimed while this one is sent; never once the relay is closing. */
  private boolean claimsAhead(Batch batch) {
    return claimer.claimsAhead(batch.claimed, batch.probing) && !stopping.getAsBoolean();
  }

  /** Claims a batch (one event while probing); null if none is claimable. */
  private Batch claim(boolean probing) throws SQLException {
    String token = claimer.nextToken();
    long claimStart = System.nanoTime();
    List<ClaimedEvent> claimed = claimer.claim(token, probing ? 1 : settings.batchSize);
    return claimedBatch(token, claimed, probing, claimStart);
  }

  /** The claimed events as a batch, told to the listener; null if none. */
  private Batch claimedBatch(
      String token, List<ClaimedEvent> claimed, boolean probing, long claimStart) {
    if (claimed.isEmpty()) {
      return null;
    }
    Duration claimTime = Duration.ofNanos(System.nanoTime() - claimStart);
    notify(() -> listener.batchClaimed(claimed.size(), claimTime));
    log.debug(
        "[{}] claimed {} events in {} ms", settings.name, claimed.size(), claimTime.toMillis());
    return new Batch(token, claimed, probing, claimStart);
  }

  /** Settles what needs no send and hands the rest to a send thread. */
  private void start(Batch batch) {
    try {
      batch.begin(decision.prepare(batch.claimed));
      if (batch.round.sendable.isEmpty()) {
        return;
      }
      if (stopping.getAsBoolean()) {
        batch.apply(decision.handBackUnsent(batch.round)); // closed while claiming: nothing sent
        return;
      }
      List<OutboxMessage> messages = new ArrayList<>(batch.round.sendable.size());
      for (ClaimedEvent c : batch.round.sendable) {
        messages.add(OutboxMessage.of(c.event(), c.attempt(), c.uncertainSends()));
      }
      batch.sendStart = System.nanoTime();
      batch.sending = sender.start(messages);
    } catch (RuntimeException | Error e) {
      fail(batch, e);
    }
  }

  /**
   * Waits for the send, decides every row that has its result, and updates the outage breaker.
   * Meanwhile, the sends left to finish on their own whose time limit passes are recorded, within
   * their lease.
   *
   * @param mayLeave the sends that keep the round waiting after others answered may be left to
   *     finish on their own (see {@link #runWhileFull()})
   */
  private void finish(Batch batch, boolean mayLeave) {
    if (batch.sending != null) {
      SendUnderway sending = batch.sending;
      batch.sending = null;
      try {
        SendOutcome outcome;
        while (true) {
          int room = mayLeave && !batch.probing ? maxStragglers - stragglers.events() : 0;
          outcome = sender.await(sending, room, stragglers.nextDeadlineNanos());
          if (outcome != null) {
            break;
          }
          settleStragglers();
        }
        batch.sendTime = Duration.ofNanos(System.nanoTime() - batch.sendStart);
        RoundDecision.Decided decided = decision.decide(batch.round, outcome, batch.probing);
        batch.apply(decided);
        if (!batch.round.settled()) {
          batch.straggling = sending;
        }
        if (!decided.interrupted) {
          // Closing: the verdict does not count.
          updateBreaker(decided.outage, decided.answered);
        }
      } catch (RuntimeException | Error e) {
        sender.abandon(sending); // its rows go back: no send may go on for them
        fail(batch, e);
      }
    }
  }

  private void fail(Batch batch, Throwable e) {
    batch.failure = e;
    log.error(
        "[{}] failed to handle a claimed batch of {}; handing it back",
        settings.name,
        batch.claimed.size(),
        e);
    batch.begin(RoundDecision.handBack(batch.claimed));
  }

  /**
   * Records every row's outcome in one fenced transaction, then tells the listener; with {@code
   * claimNext}, claims the next batch in the same transaction.
   *
   * @return the batch claimed with the acknowledgement; null if none was asked for, none was
   *     claimable, or the transaction failed (the acknowledgement then went again on its own)
   */
  private Batch acknowledge(Batch batch, boolean claimNext) throws SQLException {
    List<Stragglers.Part> late = collectStragglers();
    List<RelayStore.OwnedAcks> parts = new ArrayList<>(late.size() + 1);
    List<Ack> acks = new ArrayList<>();
    List<Runnable> notices = new ArrayList<>();
    batch.takeUnrecorded(acks, notices);
    parts.add(new RelayStore.OwnedAcks(batch.token, acks));
    for (Stragglers.Part part : late) {
      parts.add(new RelayStore.OwnedAcks(part.token, part.decided.acks));
      notices.addAll(part.decided.notices);
    }
    try {
      return recordRound(batch, parts, notices, claimNext);
    } finally {
      if (batch.straggling != null) {
        stragglers.add(batch.token, batch.round, batch.straggling);
        batch.straggling = null;
      }
    }
  }

  private Batch recordRound(
      Batch batch, List<RelayStore.OwnedAcks> parts, List<Runnable> notices, boolean claimNext)
      throws SQLException {
    long ackStart = System.nanoTime();
    String token = claimNext ? claimer.nextToken() : null;
    Claimer.AckAndClaim done = recorder.acknowledge(parts, token);
    Batch claimed = claimedBatch(token, done.claimed, false, ackStart);
    Duration ackTime = Duration.ofNanos(System.nanoTime() - ackStart);
    recorder.roundRecorded(parts, done.updated, notices);
    Duration sendTime = batch.sendTime;
    notify(() -> listener.batchCompleted(batch.claimed.size(), sendTime, ackTime));
    if (batch.interrupted) {
      Thread.currentThread().interrupt();
    }
    return claimed;
  }

  /** Decides what arrived for the stragglers, and lets it move the outage breaker. */
  private List<Stragglers.Part> collectStragglers() {
    List<Stragglers.Part> parts = stragglers.collect();
    for (Stragglers.Part part : parts) {
      updateBreaker(part.decided.outage, part.decided.answered);
    }
    return parts;
  }

  /**
   * Records the outcomes that arrived for sends left to finish on their own, in a transaction of
   * their own; nothing if none arrived. A database failure is logged: those rows come back when
   * their lease runs out.
   */
  public void settleStragglers() {
    recordLate(collectStragglers());
  }

  /** Records the outcomes of sends left to finish on their own, in a transaction of their own. */
  private void recordLate(List<Stragglers.Part> late) {
    if (late.isEmpty()) {
      return;
    }
    List<RelayStore.OwnedAcks> parts = new ArrayList<>(late.size());
    List<Runnable> notices = new ArrayList<>();
    for (Stragglers.Part part : late) {
      parts.add(new RelayStore.OwnedAcks(part.token, part.decided.acks));
      notices.addAll(part.decided.notices);
    }
    recorder.recordLate(parts, notices);
  }

  /**
   * Lets the next claims read the whole PENDING index again, below the claim floor too ({@link
   * ClaimFloor}): a caller's drain or round promises everything claimable now, even an event that
   * became claimable below the floor since the last walk.
   *
   * @return whether a floor was in use
   */
  public boolean lookBelowFloor() {
    return claimer.lookBelowFloor();
  }

  /** Whether sends left to finish on their own are still under way. */
  public boolean hasStragglers() {
    return !stragglers.isEmpty();
  }

  /**
   * How long until the earliest time limit of a send left to finish on its own passes (its outcome
   * must then be recorded); {@code null} if none is under way.
   */
  public Duration untilNextStragglerDeadline() {
    long next = stragglers.nextDeadlineNanos();
    return next == Long.MAX_VALUE ? null : Duration.ofNanos(Math.max(0, next - System.nanoTime()));
  }

  /**
   * Waits until every send left to finish on its own has its outcome — its results, or its time
   * limit — and records them. If the calling thread is interrupted (the relay is closing and gave
   * up waiting), stops the rest at once: what was confirmed is recorded, every other event goes
   * back uncharged.
   */
  public void finishStragglers() {
    while (!stragglers.isEmpty()) {
      if (Thread.currentThread().isInterrupted()
          || !stragglers.awaitProgress(stragglers.nextDeadlineNanos())) {
        recordLate(stragglers.stopAll());
        return;
      }
      settleStragglers();
    }
  }

  private void updateBreaker(String outage, boolean answered) {
    if (outage != null && !answered) {
      Duration pause = breaker.trip(outage);
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

  /** Runs a listener call; whatever it throws, an Error too, is logged and goes no further. */
  private void notify(Runnable notice) {
    HealthMonitor.call(settings.name, notice);
  }
}
