package dev.outboxkit.jdbc.internal;

import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one home of the relay's claim: which claim runs (unordered, ordered, or the sparse ordered
 * claim while heads are scarce), the dialect's {@link ClaimStrategy}, the runs behind ordered heads
 * ({@link RunClaim}) with their conflict retry, the lease owner tokens, and every "may I claim
 * ahead?" question the pipeline asks. Transactions and acknowledgements are {@link RelayStore}'s.
 */
final class Claimer {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  private final RelaySettings settings;
  private final RelayStore store;
  private final String owner;
  private final Duration maxWaitBeforeSend;
  private final AtomicLong batches = new AtomicLong();
  private final Duration reclaimEvery;
  private volatile Instant lastReclaim;
  private final RecoveryWindow recoveryWindow;

  /**
   * Set when the last ordered claim came back short, i.e. its scan found fewer claimable heads than
   * the limit and so read every pending event: then the sparse claim, whose cost is bounded by the
   * number of aggregates (never more than the pending events), is the cheaper one, until a claim
   * fills up again.
   */
  private volatile boolean headsScarce;

  private final OrderedClaimChoice scarceClaims = new OrderedClaimChoice();
  private final ClaimFloor floor;

  /**
   * @param owner the relay's lease owner prefix; each claim's token adds a batch number to it
   */
  Claimer(RelaySettings settings, RelayStore store, String owner) {
    this.settings = settings;
    this.store = store;
    this.owner = owner;
    this.floor = new ClaimFloor(settings.ordered);
    // Half of what the lease leaves beyond a send; the other half is the acknowledgement's, as
    // OutboxRelay.Builder sizes the default statement timeout.
    this.maxWaitBeforeSend = settings.leaseDuration.minus(settings.sendTimeout).dividedBy(2);
    Duration half = settings.leaseDuration.dividedBy(2);
    this.reclaimEvery = half.compareTo(Duration.ofSeconds(5)) < 0 ? half : Duration.ofSeconds(5);
    this.recoveryWindow = new RecoveryWindow(settings.leaseDuration);
  }

  /** {@return a new claim's lease owner: the relay's owner and a batch number} */
  String nextToken() {
    return owner + "/" + batches.incrementAndGet();
  }

  /**
   * Claims up to {@code limit} events for {@code token}, in seq order, in one short transaction.
   *
   * <p>Ordered mode claims the head of each aggregate (its first unfinished event) and, while the
   * heads leave room in the batch, runs: each head's due PENDING successors, up to the aggregate's
   * first event that is not (IN_FLIGHT, DEAD, or not due yet), at most an even share of the room
   * per aggregate. Holding the head keeps every other relay off the run, since each of its events
   * is blocked by the head.
   */
  List<ClaimedEvent> claim(String token, int limit) throws SQLException {
    return acknowledgeThenClaim(List.of(), token, limit).claimed;
  }

  /**
   * Records outcomes (of one or more batches) and claims the next batch in the same transaction:
   * one commit (on MySQL and MariaDB one InnoDB log flush) and one round trip fewer than an
   * acknowledgement then a claim. The claim sees the acknowledgement: in ordered mode the
   * successors of the events it made PUBLISHED are claimable in it. If either part fails, neither
   * happened.
   *
   * @param parts the outcomes to record, each under its claim's token; empty records nothing
   */
  AckAndClaim acknowledgeThenClaim(List<RelayStore.OwnedAcks> parts, String token, int limit)
      throws SQLException {
    boolean runs = settings.ordered;
    while (true) {
      try {
        return acknowledgeThenClaim(parts, token, limit, runs);
      } catch (RunClaim.Conflict e) {
        // A run's row changed between reading and marking it (an append committed out of seq
        // order on a hot aggregate, say): the whole transaction was rolled back; claim the heads
        // alone.
        runs = false;
      }
    }
  }

  private AckAndClaim acknowledgeThenClaim(
      List<RelayStore.OwnedAcks> parts, String token, int limit, boolean withRuns)
      throws SQLException {
    OutboxSql known = store.sql();
    ClaimStrategy claims = known.dialect().claims();
    boolean scarce = settings.ordered && headsScarce && claims.hasSparseClaim();
    ClaimStrategy.Mode mode = mode(scarce);
    Duration lease = settings.leaseDuration;
    int[] heads = new int[1];
    long[] took = new long[1];
    AckAndClaim result =
        store.inTransaction(
            claims.prelude(mode),
            c -> {
              int updated = store.record(c, parts, settings.deleteOnPublish);
              OutboxSql s = store.sql(c);
              long from = mode == ClaimStrategy.Mode.ORDERED_SPARSE ? 0 : floor.now(c, s);
              long started = System.nanoTime();
              ClaimStrategy.Claimed claim;
              try {
                claim = claims.claim(c, s, token, limit, mode, lease, from);
              } finally {
                took[0] = System.nanoTime() - started;
                // A claim the statement timeout cut off counts at least as long, so the other is
                // tried next, not the same one again and again.
                if (scarce) {
                  scarceClaims.took(mode == ClaimStrategy.Mode.ORDERED_SPARSE, took[0]);
                }
              }
              List<ClaimedEvent> claimed = claim.events;
              heads[0] = claimed.size();
              if (withRuns && claim.runsPossible && !claimed.isEmpty() && claimed.size() < limit) {
                claimed.addAll(RunClaim.claim(c, s, token, claimed, limit - claimed.size(), lease));
              }
              claimed.sort(Comparator.comparingLong(ClaimedEvent::seq));
              return new AckAndClaim(updated, claimed);
            });
    if (settings.ordered) {
      boolean scarceNow = heads[0] < limit;
      if (scarceNow && !scarce && claims.hasSparseClaim()) {
        // A scanning claim that came back short read every pending event: what the scanning claim
        // costs while heads are scarce, so the choice need not run it again to find out.
        scarceClaims.took(false, took[0]);
      }
      headsScarce = scarceNow;
    }
    return result;
  }

  /** See {@link RelayCycle#lookBelowFloor()}. */
  boolean lookBelowFloor() {
    return floor.drop();
  }

  /**
   * The claim to run: while heads are scarce, where the dialect has a sparse ordered claim, the one
   * of the two ordered claims that cost less lately ({@link OrderedClaimChoice}).
   */
  private ClaimStrategy.Mode mode(boolean scarce) {
    if (!settings.ordered) {
      return ClaimStrategy.Mode.UNORDERED;
    }
    return scarce && scarceClaims.sparse()
        ? ClaimStrategy.Mode.ORDERED_SPARSE
        : ClaimStrategy.Mode.ORDERED;
  }

  /**
   * Hands rows whose lease ran out back to PENDING (or DEAD after too many losses), at most every
   * half lease and at least every 5 s: they become claimable again. Each reads the leases that ran
   * out since the one before ({@link RecoveryWindow}), every expired lease once a lease.
   */
  void recoverLeasesIfDue() throws SQLException {
    Instant now = settings.clock.instant();
    if (lastReclaim == null || !now.isBefore(lastReclaim.plus(reclaimEvery))) {
      lastReclaim = now;
      long started = System.nanoTime();
      RelayStore.Reclaimed reclaimed =
          store.reclaimExpiredLeases(
              settings.leaseLossesBeforeDead, recoveryWindow.micros(started));
      recoveryWindow.recovered(started, reclaimed.everyLease);
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

  /**
   * Whether the next round is claimed while a batch is sent: only after a full batch, never while
   * probing a transport that was down, and not after runs in ordered mode (few aggregates wait,
   * each now IN_FLIGHT: a claim ahead would find nothing claimable, at the price of a search).
   */
  boolean claimsAhead(List<ClaimedEvent> batch, boolean probing) {
    return batch.size() >= settings.batchSize && !probing && !(settings.ordered && hasRuns(batch));
  }

  /**
   * Whether a full batch with runs is followed by a claim in its acknowledgement's transaction:
   * that claim sees the runs' successors, which a claim ahead could not.
   */
  boolean followsRuns(List<ClaimedEvent> batch, boolean probing) {
    return batch.size() >= settings.batchSize && !probing && settings.ordered && hasRuns(batch);
  }

  /**
   * Whether a batch claimed at {@code claimedAtNanos} may still be sent: it waited at most half of
   * what its lease leaves beyond a send, so no send outlives its lease.
   */
  boolean leaseCovers(long claimedAtNanos) {
    return System.nanoTime() - claimedAtNanos <= maxWaitBeforeSend.toNanos();
  }

  private static boolean hasRuns(List<ClaimedEvent> claimed) {
    Set<String> aggregates = new HashSet<>();
    for (ClaimedEvent c : claimed) {
      if (!aggregates.add(c.aggregate())) {
        return true;
      }
    }
    return false;
  }

  /** What an acknowledgement did, and what it claimed after it. */
  static final class AckAndClaim {
    /** Rows the acknowledgement updated; fewer than its acks means leases lost. */
    final int updated;

    /** The events claimed after it, in seq order; empty if none was asked for or claimable. */
    final List<ClaimedEvent> claimed;

    AckAndClaim(int updated, List<ClaimedEvent> claimed) {
      this.updated = updated;
      this.claimed = claimed;
    }
  }
}
