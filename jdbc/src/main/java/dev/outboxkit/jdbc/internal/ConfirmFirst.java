package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.internal.LogText;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A transport that can look events up ({@link Transport#confirmsDelivery()}), asked first about
 * every message whose earlier send was uncertain: one it confirms is answered delivered without
 * being sent again, the rest go to the transport as one batch. The lookups run on the send thread,
 * inside the batch's time limit. A lookup that fails (an exception or an {@code Error}) sends the
 * event again: a duplicate is acceptable, a lost event is not.
 */
final class ConfirmFirst implements Transport {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");

  private final Transport transport;
  private final String relay;

  private ConfirmFirst(Transport transport, String relay) {
    this.transport = transport;
    this.relay = relay;
  }

  /** {@return the transport, asked first where it can look events up} */
  static Transport wrap(Transport transport, String relay) {
    return transport.confirmsDelivery() ? new ConfirmFirst(transport, relay) : transport;
  }

  @Override
  public SendResult send(OutboxMessage message) {
    return confirmed(message) ? SendResult.delivered() : transport.send(message);
  }

  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    boolean[] confirmed = confirmAll(batch);
    List<OutboxMessage> rest = unconfirmed(batch, confirmed);
    if (rest.size() == batch.size()) {
      return transport.sendBatch(batch);
    }
    List<SendResult> sent = rest.isEmpty() ? List.of() : transport.sendBatch(rest);
    if (sent == null || sent.size() != rest.size()) {
      return null; // the transport's wrong answer, reported as such by the caller
    }
    List<SendResult> results = new ArrayList<>(batch.size());
    int next = 0;
    for (boolean c : confirmed) {
      results.add(c ? SendResult.delivered() : sent.get(next++));
    }
    return results;
  }

  @Override
  public List<CompletableFuture<SendResult>> sendBatchAsync(List<OutboxMessage> batch) {
    boolean[] confirmed = confirmAll(batch);
    List<OutboxMessage> rest = unconfirmed(batch, confirmed);
    if (rest.size() == batch.size()) {
      return transport.sendBatchAsync(batch);
    }
    List<CompletableFuture<SendResult>> sent =
        rest.isEmpty() ? List.of() : transport.sendBatchAsync(rest);
    if (sent == null || sent.size() != rest.size()) {
      return null; // the transport's wrong answer, reported as such by the caller
    }
    List<CompletableFuture<SendResult>> results = new ArrayList<>(batch.size());
    int next = 0;
    for (boolean c : confirmed) {
      results.add(c ? CompletableFuture.completedFuture(SendResult.delivered()) : sent.get(next++));
    }
    return results;
  }

  @Override
  public boolean keepsOrderWithinBatch() {
    return transport.keepsOrderWithinBatch();
  }

  @Override
  public boolean classifiesFailures() {
    return transport.classifiesFailures();
  }

  @Override
  public boolean confirmsDelivery() {
    return true;
  }

  @Override
  public boolean confirm(OutboxMessage message) {
    return transport.confirm(message);
  }

  @Override
  public void close() {
    transport.close();
  }

  private boolean[] confirmAll(List<OutboxMessage> batch) {
    boolean[] confirmed = new boolean[batch.size()];
    for (int i = 0; i < confirmed.length; i++) {
      confirmed[i] = confirmed(batch.get(i));
    }
    return confirmed;
  }

  private static List<OutboxMessage> unconfirmed(List<OutboxMessage> batch, boolean[] confirmed) {
    List<OutboxMessage> rest = new ArrayList<>(batch.size());
    for (int i = 0; i < confirmed.length; i++) {
      if (!confirmed[i]) {
        rest.add(batch.get(i));
      }
    }
    return rest;
  }

  /** Whether the destination says it has the event; false for most messages, without asking. */
  private boolean confirmed(OutboxMessage message) {
    if (message.uncertainSends() == 0 || Thread.currentThread().isInterrupted()) {
      return false;
    }
    boolean found;
    try {
      found = transport.confirm(message);
    } catch (RuntimeException | Error e) {
      // An Error too (a class missing at run time): a lookup that cannot answer never keeps an
      // event from being sent, or it would be charged a failed attempt each round instead.
      log.warn(
          "[{}] could not ask whether event {} arrived after an uncertain send; sending it again:"
              + " {}",
          relay,
          message.event().id(),
          LogText.escape(Failures.describe(e)));
      return false;
    }
    if (found) {
      log.info(
          "[{}] event {} was found at its destination after {} uncertain send(s): recorded as"
              + " published, not sent again",
          relay,
          message.event().id(),
          message.uncertainSends());
    }
    return found;
  }
}
