package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The blocking ways {@link Sender} calls a transport on a send thread: a batch with its answer
 * checked, one event at a time (with the event in the MDC), and waves that keep an aggregate's
 * order for a transport that does not. Every way gives each message a result; a transport that
 * throws or answers a batch wrongly gets its events one at a time.
 */
final class TransportCalls {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  private static final SendResult NOT_SENT_BEHIND =
      SendResult.unavailable("not sent: an earlier event of its aggregate was not delivered");

  private final String relay;
  private final Transport transport;
  private final TransportConduct conduct;

  TransportCalls(String relay, Transport transport, TransportConduct conduct) {
    this.relay = relay;
    this.transport = transport;
    this.conduct = conduct;
  }

  /** Whether a batch holds more than one event of some aggregate. */
  static boolean hasRuns(List<OutboxMessage> messages) {
    Set<String> aggregates = new HashSet<>();
    for (OutboxMessage m : messages) {
      OutboxEvent e = m.event();
      if (!aggregates.add(ClaimedEvent.aggregateKey(e.aggregateType(), e.aggregateId()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Sends wave after wave: the first event of each aggregate, then the second of each aggregate
   * whose first was delivered, and so on.
   *
   * @param heldBehind set to the messages not sent because an earlier one of their aggregate was
   *     not delivered
   */
  List<SendResult> sendInWaves(List<OutboxMessage> messages, BitSet heldBehind) {
    int n = messages.size();
    String[] aggregate = new String[n];
    int[] wave = new int[n];
    Map<String, Integer> seen = new HashMap<>();
    int waves = 0;
    for (int i = 0; i < n; i++) {
      OutboxEvent e = messages.get(i).event();
      aggregate[i] = ClaimedEvent.aggregateKey(e.aggregateType(), e.aggregateId());
      wave[i] = seen.merge(aggregate[i], 1, Integer::sum) - 1;
      waves = Math.max(waves, wave[i] + 1);
    }
    SendResult[] results = new SendResult[n];
    Set<String> stopped = new HashSet<>();
    for (int w = 0; w < waves; w++) {
      List<Integer> indices = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        if (wave[i] != w) {
          continue;
        }
        if (stopped.contains(aggregate[i])) {
          results[i] = NOT_SENT_BEHIND;
          heldBehind.set(i);
        } else if (Thread.currentThread().isInterrupted()) {
          results[i] = SendResult.unavailable("not sent: the relay stopped the batch");
        } else {
          indices.add(i);
        }
      }
      if (indices.isEmpty()) {
        continue;
      }
      List<OutboxMessage> part = new ArrayList<>(indices.size());
      for (int i : indices) {
        part.add(messages.get(i));
      }
      List<SendResult> answered = sendChecked(part);
      for (int k = 0; k < indices.size(); k++) {
        int i = indices.get(k);
        results[i] = answered.get(k);
        if (!results[i].isDelivered()) {
          stopped.add(aggregate[i]);
        }
      }
    }
    return Arrays.asList(results);
  }

  /**
   * Calls the transport's {@code sendBatch} for a part of a batch (one wave), one at a time when
   * its answer cannot be matched to the messages.
   */
  private List<SendResult> sendChecked(List<OutboxMessage> messages) {
    if (messages.size() == 1) {
      return oneByOne(messages);
    }
    List<SendResult> results;
    try {
      results = transport.sendBatch(messages);
    } catch (Throwable t) {
      return afterThrow(messages, t);
    }
    if (results == null || results.size() != messages.size()) {
      return afterMismatch(messages, results);
    }
    List<SendResult> checked = new ArrayList<>(results.size());
    for (SendResult r : results) {
      checked.add(r != null ? r : SendResult.retry("transport bug: null result", null));
    }
    return checked;
  }

  /** The transport threw for a whole batch: one at a time, so each event gets its own outcome. */
  List<SendResult> afterThrow(List<OutboxMessage> messages, Throwable t) {
    log.error(
        "[{}] transport's sendBatch threw for a batch of {} ({}); sending them one at a time so"
            + " each event gets its own outcome",
        relay,
        messages.size(),
        Failures.describe(t));
    return oneByOne(messages);
  }

  /** A batch answer that does not match the messages (null, or a wrong size): one at a time. */
  List<SendResult> afterMismatch(List<OutboxMessage> messages, List<?> answer) {
    conduct.wrongSize(messages.size(), answer == null ? "null" : answer.size() + " results");
    return oneByOne(messages);
  }

  /**
   * Calls the transport once per event, with the event's identifiers in the MDC (each goes as a
   * batch of one, so the transport's own handling of {@code send} applies unchanged).
   */
  List<SendResult> oneByOne(List<OutboxMessage> messages) {
    List<SendResult> results = new ArrayList<>(messages.size());
    for (OutboxMessage m : messages) {
      if (Thread.currentThread().isInterrupted()) {
        results.add(SendResult.unavailable("not sent: the relay stopped the batch"));
        continue;
      }
      EventMdc scope = EventMdc.of(m.event());
      try {
        List<SendResult> one = transport.sendBatch(List.of(m));
        results.add(
            one == null || one.size() != 1 || one.get(0) == null
                ? SendResult.retry(
                    "transport bug: sendBatch of one message returned "
                        + (one == null
                            ? "null"
                            : one.size() == 1 ? "a null result" : one.size() + " results"),
                    null)
                : one.get(0));
      } catch (Throwable t) {
        // Whatever it is (an Error too: a class missing at run time, a stack overflow on this
        // payload), it is this event's failure.
        results.add(SendResult.retry(Failures.describe(t), null));
      } finally {
        scope.close();
      }
    }
    return results;
  }
}
