package dev.outboxkit.console;

import dev.outboxkit.jdbc.StoredEvent;
import java.time.Instant;
import java.util.List;

/**
 * A plain sentence for where an event is and, if it waits, why: the first of the reasons the relay
 * would apply. Ordered mode is a relay option the table does not record, so the reasons that hold
 * only there say so.
 */
final class WaitReasons {
  private WaitReasons() {}

  /**
   * @param event the event
   * @param earlier the unfinished events of its aggregate before it, in order (may be empty)
   * @param now the database's clock
   */
  static String explain(StoredEvent event, List<StoredEvent> earlier, Instant now) {
    String status = event.status();
    switch (status) {
      case "PUBLISHED":
        return "Published at " + finished(event) + ".";
      case "EXPIRED":
        return "Expired unsent at " + finished(event) + ".";
      case "CANCELLED":
        return "Cancelled by the application at " + finished(event) + "; never sent.";
      case "SUPERSEDED":
        return "Superseded by a later event with the same key at "
            + finished(event)
            + "; never sent.";
      case "DEAD":
        return "Quarantined at "
            + finished(event)
            + " after "
            + event.attempts()
            + " failed attempt(s): "
            + event.lastError().orElse("no reason recorded")
            + ". Replay or discard it; in ordered mode its aggregate's later events wait behind it.";
      case "IN_FLIGHT":
        return inFlight(event, now);
      case "PENDING":
        return pending(event, earlier, now);
      default:
        return "Status " + status + " is not one this console knows.";
    }
  }

  private static String inFlight(StoredEvent event, Instant now) {
    String owner = event.leaseOwner().orElse("an unknown relay");
    Instant until = event.leaseUntil().orElse(null);
    if (until != null && !until.isAfter(now)) {
      return "Claimed by relay "
          + owner
          + ", whose lease ran out at "
          + until
          + ": the next relay round takes it back.";
    }
    return "Claimed by relay " + owner + " until " + until + ": being sent.";
  }

  private static String pending(StoredEvent event, List<StoredEvent> earlier, Instant now) {
    if (event.expiresAt().isPresent() && !event.expiresAt().get().isAfter(now)) {
      return "Expired at "
          + event.expiresAt().get()
          + ": the next relay to claim it marks it EXPIRED without sending it.";
    }
    for (StoredEvent e : earlier) {
      if ("DEAD".equals(e.status())) {
        return "In ordered mode, held behind DEAD event seq "
            + e.seq()
            + " of its aggregate: replay or discard that event first.";
      }
    }
    if (event.availableAt().isAfter(now)) {
      String note = event.lastError().orElse(null);
      if (event.destinationDownSince().isPresent()) {
        return "Its destination "
            + event.destination().orElse("(default)")
            + " is down since "
            + event.destinationDownSince().get()
            + "; held back, uncharged, until "
            + event.availableAt()
            + ". The destination said: "
            + note;
      }
      if (event.attempts() > 0 || note != null) {
        return "Retrying: not due until "
            + event.availableAt()
            + " after "
            + event.attempts()
            + " failed attempt(s)"
            + (note == null ? "" : "; last: " + note)
            + ".";
      }
      return "Not due until " + event.availableAt() + ".";
    }
    if (!earlier.isEmpty()) {
      StoredEvent first = earlier.get(0);
      return "In ordered mode, waits for seq "
          + first.seq()
          + " of its aggregate ("
          + first.status()
          + ") to finish; otherwise due now, waiting for a relay to claim it.";
    }
    return "Due now: waiting for a relay to claim it.";
  }

  private static String finished(StoredEvent event) {
    return event.finishedAt().map(Instant::toString).orElse("an unrecorded time");
  }
}
