package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.jdbc.RelayListener;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records rounds' outcomes: one fenced transaction per acknowledgement (with the next claim in it
 * when the pipeline asks), tried again on its own when it fails, then the counts, the leases lost
 * and the listener calls once it committed.
 */
final class Recorder {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  /** Tries of one acknowledgement before its failure goes up. */
  static final int ACK_TRIES = 3;

  private final RelaySettings settings;
  private final RelayStore store;
  private final Claimer claimer;
  private final RelayListener listener;
  private final AtomicLong acknowledged = new AtomicLong();
  // Outcomes recorded, by Ack.Kind ordinal (lease losses included: what this relay wrote down).
  private final AtomicLongArray outcomes = new AtomicLongArray(Ack.Kind.values().length);

  Recorder(RelaySettings settings, RelayStore store, Claimer claimer, RelayListener listener) {
    this.settings = settings;
    this.store = store;
    this.claimer = claimer;
    this.listener = listener;
  }

  /**
   * {@return how many outcomes of each kind were recorded so far, by {@link Ack.Kind#ordinal()}}
   */
  long[] outcomes() {
    long[] copy = new long[outcomes.length()];
    for (int i = 0; i < copy.length; i++) {
      copy[i] = outcomes.get(i);
    }
    return copy;
  }

  /** {@return how many acknowledgements of rounds committed so far} */
  long roundsAcknowledged() {
    return acknowledged.get();
  }

  /**
   * Records the parts in one fenced transaction; with a {@code claimToken}, claims the next batch
   * under it in the same transaction. If that fails, the acknowledgement goes again on its own
   * (nothing claimed), up to {@link #ACK_TRIES} tries in all.
   *
   * @param claimToken the next claim's token, or null to claim nothing
   */
  Claimer.AckAndClaim acknowledge(List<RelayStore.OwnedAcks> parts, String claimToken)
      throws SQLException {
    SQLException folded = null;
    if (claimToken != null) {
      try {
        return claimer.acknowledgeThenClaim(parts, claimToken, settings.batchSize);
      } catch (SQLException e) {
        folded = e;
        logFailure(size(parts), 1, e);
      } catch (RuntimeException | Error e) {
        // Rolled back whole, like a database failure: the acknowledgement goes on its own (the
        // relay's loop, too, survives an Error and goes on).
        log.error(
            "[{}] claiming the next batch with the acknowledgement of {} events failed;"
                + " acknowledging them alone",
            settings.name,
            size(parts),
            e);
      }
    }
    return new Claimer.AckAndClaim(acknowledgeAlone(parts, folded), List.of());
  }

  /**
   * After a round's acknowledgement committed: counts it and its outcomes, reports leases lost,
   * then makes the listener calls.
   */
  void roundRecorded(List<RelayStore.OwnedAcks> parts, int updated, List<Runnable> notices) {
    acknowledged.incrementAndGet();
    recorded(parts, updated, notices);
  }

  /**
   * Records outcomes of sends left to finish on their own, in a transaction of their own. A
   * database failure is logged: those rows come back when their lease runs out.
   */
  void recordLate(List<RelayStore.OwnedAcks> parts, List<Runnable> notices) {
    try {
      recorded(parts, acknowledgeAlone(parts, null), notices);
    } catch (SQLException | RuntimeException e) {
      // The tries were logged one by one; the rows are safe IN_FLIGHT until their lease runs out.
      log.warn(
          "[{}] giving up recording the outcome of {} events; they are sent again once their"
              + " lease runs out: {}",
          settings.name,
          size(parts),
          Failures.describe(e));
    }
  }

  private void recorded(List<RelayStore.OwnedAcks> parts, int updated, List<Runnable> notices) {
    int acks = size(parts);
    for (RelayStore.OwnedAcks part : parts) {
      for (Ack ack : part.acks) {
        outcomes.incrementAndGet(ack.kind().ordinal());
      }
    }
    if (updated < acks) {
      int lost = acks - updated;
      log.warn(
          "[{}] lease lost for {} of {} events (another relay took them over after the lease"
              + " expired; they are delivered again by it)",
          settings.name,
          lost,
          acks);
      HealthMonitor.call(settings.name, () -> listener.leaseLost(lost));
    }
    notices.forEach(notice -> HealthMonitor.call(settings.name, notice));
  }

  /**
   * The acknowledgement on its own, tried until {@link #ACK_TRIES} tries in all were made.
   *
   * @param folded the failure of a first try that also claimed, or null if none was made
   */
  private int acknowledgeAlone(List<RelayStore.OwnedAcks> parts, SQLException folded)
      throws SQLException {
    SQLException failure = folded;
    if (folded != null && !sleep(Duration.ofMillis(200L))) {
      throw folded;
    }
    for (int attempt = folded == null ? 1 : 2; attempt <= ACK_TRIES; attempt++) {
      try {
        return store.acknowledge(parts, settings.deleteOnPublish);
      } catch (SQLException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
        logFailure(size(parts), attempt, e);
        if (attempt < ACK_TRIES && !sleep(Duration.ofMillis(200L * attempt))) {
          break;
        }
      }
    }
    throw failure;
  }

  private void logFailure(int events, int attempt, SQLException e) {
    log.warn(
        "[{}] recording the outcome of {} events failed (try {} of {}): {}",
        settings.name,
        events,
        attempt,
        ACK_TRIES,
        e.getMessage());
  }

  static int size(List<RelayStore.OwnedAcks> parts) {
    int n = 0;
    for (RelayStore.OwnedAcks part : parts) {
      n += part.size();
    }
    return n;
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
}
