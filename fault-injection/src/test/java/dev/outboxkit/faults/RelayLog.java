package dev.outboxkit.faults;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The protocol lines of one {@link RelayChild} process, read back: per batch, what was claimed,
 * sent, acknowledged by Kafka and recorded in the database.
 */
final class RelayLog {
  final String name;
  final boolean killed;
  final Map<Integer, Batch> batches = new LinkedHashMap<>();
  final List<Line> lines = new ArrayList<>();

  /** One protocol line: time, word, batch number, the rest. */
  static final class Line {
    final long millis;
    final String word;
    final int batch;
    final List<String> ids;

    Line(long millis, String word, int batch, List<String> ids) {
      this.millis = millis;
      this.word = word;
      this.batch = batch;
      this.ids = ids;
    }
  }

  /**
   * What one claim of this process went through: when and how big, and whether its outcome was
   * recorded. (What was sent is per transport call, in {@link #lines}.)
   */
  static final class Batch {
    final int number;
    long claimedAt;
    // When its claim transaction began: the lease it took runs from no earlier than this.
    long claimStartedAt;
    int size;
    boolean dbAcked;
    int leaseLost;

    Batch(int number) {
      this.number = number;
    }
  }

  RelayLog(String name, boolean killed, List<String> protocol) {
    this.name = name;
    this.killed = killed;
    for (String text : protocol) {
      String[] f = text.split(" ", 4);
      long millis = Long.parseLong(f[0]);
      String word = f[1];
      int b = -1;
      List<String> ids = List.of();
      switch (word) {
        case "CLAIMED":
        case "DB_ACKED":
        case "LEASE_LOST":
        case "RETRY_ASKED":
        case "SENDING":
        case "CUT_OFF":
        case "ACKED_BY_BROKER":
          b = Integer.parseInt(f[2]);
          if (f.length > 3
              && !f[3].isBlank()
              && !word.equals("CLAIMED")
              && !word.equals("LEASE_LOST")) {
            ids = Arrays.asList(f[3].split(","));
          }
          break;
        default:
          break;
      }
      lines.add(new Line(millis, word, b, ids));
      if (b < 0
          || !(word.equals("CLAIMED") || word.equals("DB_ACKED") || word.equals("LEASE_LOST"))) {
        continue;
      }
      Batch batch = batches.computeIfAbsent(b, Batch::new);
      switch (word) {
        case "CLAIMED":
          String[] sizeAndTook = f[3].split(" ");
          batch.claimedAt = millis;
          batch.size = Integer.parseInt(sizeAndTook[0]);
          batch.claimStartedAt = millis - Long.parseLong(sizeAndTook[1]);
          break;
        case "DB_ACKED":
          batch.dbAcked = true;
          break;
        case "LEASE_LOST":
          batch.leaseLost += Integer.parseInt(f[3]);
          break;
        default:
          break;
      }
    }
  }

  /** The batch a kill interrupted: the last one claimed, if its outcome was not recorded. */
  Batch interrupted() {
    if (!killed || batches.isEmpty()) {
      return null;
    }
    Batch last = null;
    for (Batch b : batches.values()) {
      last = b;
    }
    return last.dbAcked ? null : last;
  }

  /** Ids Kafka acknowledged to this process that its database acknowledgements never recorded. */
  Set<String> brokerAckedNotRecorded() {
    return notRecorded("ACKED_BY_BROKER");
  }

  /** Ids this process sent that its database acknowledgements never recorded PUBLISHED. */
  Set<String> sentNotRecorded() {
    return notRecorded("SENDING");
  }

  private Set<String> notRecorded(String word) {
    Set<String> ids = new HashSet<>();
    Set<String> recorded = new HashSet<>();
    for (Line line : lines) {
      if (line.word.equals(word)) {
        ids.addAll(line.ids);
      } else if (line.word.equals("DB_ACKED")) {
        recorded.addAll(line.ids);
      }
    }
    ids.removeAll(recorded);
    return ids;
  }

  /**
   * When each id was first recorded PUBLISHED by this process ({@code DB_ACKED}), in epoch millis.
   */
  Map<String, Long> recordedAt() {
    Map<String, Long> at = new HashMap<>();
    for (Line line : lines) {
      if (line.word.equals("DB_ACKED")) {
        for (String id : line.ids) {
          at.putIfAbsent(id, line.millis);
        }
      }
    }
    return at;
  }

  /** Ids sent in batches whose acknowledgement found its lease lost. */
  Set<String> leaseLostIds() {
    Set<String> ids = new HashSet<>();
    boolean lost = false;
    for (Line line : lines) {
      if (line.word.equals("LEASE_LOST")) {
        lost = true;
      }
    }
    if (lost) {
      // Sends are numbered apart from claims: every id sent and not recorded is a candidate.
      ids.addAll(sentNotRecorded());
    }
    return ids;
  }
}
