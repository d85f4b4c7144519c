package dev.outboxkit.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Explains every event delivered more than once, from the protocol logs of the relays that sent it
 * ({@link RelayLog}).
 *
 * <p>At-least-once allows a duplicate only where a relay sent an event and never recorded its
 * outcome: mostly the batch a kill interrupted (Kafka acknowledged it, or it was in flight);
 * rarely, on a loaded machine, a send a live relay was not told arrived (Kafka timed out although
 * it took the record) or whose lease it lost. An event that every relay that sent it also recorded
 * PUBLISHED, and that still arrived twice, is unexplained: the fencing or the acknowledgement
 * failed. So is an event sent after a relay recorded it PUBLISHED (the same millisecond is left to
 * chance), unless the sender's acknowledgement then found its lease lost: a stalled relay's stale
 * claim.
 */
final class Duplicates {
  /** Duplicated ids that a killed relay had from Kafka an acknowledgement for, never recorded. */
  final int ackedBeforeKill;

  /** Duplicated ids that a killed relay sent, without an acknowledgement from Kafka. */
  final int inFlightAtKill;

  /** Duplicated ids that a live relay sent and was not told arrived, or lost with its lease. */
  final int unconfirmedLive;

  /** Ids sent and not recorded by relays whose acknowledgement found a lease lost. */
  final int leaseLost;

  /** Duplicated ids that no unrecorded send explains, marked when a lease was lost over them. */
  final List<String> unexplained;

  /** Sends of ids after a relay had recorded them PUBLISHED: "id by relay". */
  final List<String> sentAfterRecorded;

  private Duplicates(
      int ackedBeforeKill,
      int inFlightAtKill,
      int unconfirmedLive,
      int leaseLost,
      List<String> unexplained,
      List<String> sentAfterRecorded) {
    this.ackedBeforeKill = ackedBeforeKill;
    this.inFlightAtKill = inFlightAtKill;
    this.unconfirmedLive = unconfirmedLive;
    this.leaseLost = leaseLost;
    this.unexplained = unexplained;
    this.sentAfterRecorded = sentAfterRecorded;
  }

  /**
   * @param logs every relay that ran, killed or not
   * @param copies how many times each event id arrived
   */
  static Duplicates explain(List<RelayLog> logs, Map<String, Integer> copies) {
    Set<String> ackedBeforeKill = new HashSet<>();
    Set<String> inFlightAtKill = new HashSet<>();
    Set<String> unconfirmedLive = new HashSet<>();
    Set<String> leaseLost = new HashSet<>();
    Map<String, Long> recordedAt = new HashMap<>();
    for (RelayLog l : logs) {
      if (l.killed) {
        // The batch being sent at the kill, and the one before it whose acknowledgement ran.
        ackedBeforeKill.addAll(l.brokerAckedNotRecorded());
        inFlightAtKill.addAll(l.sentNotRecorded());
      } else {
        unconfirmedLive.addAll(l.sentNotRecorded());
      }
      leaseLost.addAll(l.leaseLostIds());
      l.recordedAt().forEach((id, at) -> recordedAt.merge(id, at, Math::min));
    }
    int acked = 0;
    int inFlight = 0;
    int live = 0;
    List<String> unexplained = new ArrayList<>();
    for (Map.Entry<String, Integer> e : copies.entrySet()) {
      String id = e.getKey();
      if (e.getValue() < 2) {
        continue;
      }
      if (ackedBeforeKill.contains(id)) {
        acked++;
      } else if (inFlightAtKill.contains(id)) {
        inFlight++;
      } else if (unconfirmedLive.contains(id)) {
        live++;
      } else {
        unexplained.add(id + (leaseLost.contains(id) ? " (lease lost)" : ""));
      }
    }
    List<String> sentAfterRecorded = new ArrayList<>();
    for (RelayLog l : logs) {
      for (RelayLog.Line line : l.lines) {
        if (!line.word.equals("SENDING")) {
          continue;
        }
        for (String id : line.ids) {
          Long at = recordedAt.get(id);
          if (at != null && line.millis > at && !leaseLost.contains(id)) {
            sentAfterRecorded.add(id + " by " + l.name);
          }
        }
      }
    }
    return new Duplicates(acked, inFlight, live, leaseLost.size(), unexplained, sentAfterRecorded);
  }
}
