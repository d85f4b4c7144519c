package dev.outboxkit.internal;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What every OutboxKit transport answers before it sends anything, in one place: a null batch or
 * message is refused, an empty batch has no results, one message is sent as a batch of one, and
 * once the transport is closed every message is answered {@link SendResult#unavailable(String)
 * unavailable} (the relay holds such events back, uncharged), never an exception. Thread-safe.
 */
public final class TransportGate {
  private final String closedReason;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param transport how the transport names itself in the closed answer, e.g. {@code Kafka
   *     transport 'orders'}
   */
  public TransportGate(String transport) {
    this.closedReason = transport + " is closed";
  }

  /**
   * Closes the gate.
   *
   * @return true for the first call only, which is the one to release the transport's resources
   */
  public boolean close() {
    return closed.compareAndSet(false, true);
  }

  /** Whether {@link #close()} was called. */
  public boolean isClosed() {
    return closed.get();
  }

  /**
   * The batch's results: none for an empty batch, every message unavailable once closed, else what
   * the sender answers.
   *
   * @param batch the messages
   * @param sender sends a non-empty batch while the transport is open
   * @return one result per message, in order
   * @throws NullPointerException if the batch is null
   */
  public List<SendResult> send(
      List<OutboxMessage> batch, Function<List<OutboxMessage>, List<SendResult>> sender) {
    Objects.requireNonNull(batch, "batch");
    if (batch.isEmpty()) {
      return List.of();
    }
    return closed.get() ? closedResults(batch.size()) : sender.apply(batch);
  }

  /**
   * One message, sent as a batch of one.
   *
   * @param message the message
   * @param sendBatch the transport's {@code sendBatch}
   * @return its result
   * @throws NullPointerException if the message is null
   */
  public SendResult sendOne(
      OutboxMessage message, Function<List<OutboxMessage>, List<SendResult>> sendBatch) {
    return sendBatch.apply(List.of(Objects.requireNonNull(message, "message"))).get(0);
  }

  /**
   * As {@link #send}, for a transport that completes each result on its own: the closed answers are
   * completed at once.
   *
   * @param batch the messages
   * @param starter starts a non-empty batch while the transport is open
   * @return one future per message, in order
   * @throws NullPointerException if the batch is null
   */
  public List<CompletableFuture<SendResult>> start(
      List<OutboxMessage> batch,
      Function<List<OutboxMessage>, List<CompletableFuture<SendResult>>> starter) {
    Objects.requireNonNull(batch, "batch");
    if (batch.isEmpty()) {
      return new ArrayList<>();
    }
    if (closed.get()) {
      return closedResults(batch.size()).stream()
          .map(CompletableFuture::completedFuture)
          .collect(Collectors.toList());
    }
    return starter.apply(batch);
  }

  private List<SendResult> closedResults(int size) {
    return new ArrayList<>(Collections.nCopies(size, SendResult.unavailable(closedReason)));
  }
}
