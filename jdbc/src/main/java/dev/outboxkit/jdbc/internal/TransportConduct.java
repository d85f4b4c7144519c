package dev.outboxkit.jdbc.internal;

import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.RelayListener;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the relay knows of its transport's keeping of the contract: whether it may still be trusted
 * with an aggregate's run in one batch, and the one place that reports a broken contract (log line
 * at ERROR naming the transport, listener call). A transport that delivered an event after an
 * earlier one of its aggregate that it did not deliver loses that trust for the relay's lifetime:
 * from then on the relay sends runs in waves of one event per aggregate, as for a transport that
 * never promised order.
 */
final class TransportConduct {
  private static final Logger log = LoggerFactory.getLogger(TransportConduct.class);

  private final String relay;
  private final String transport;
  private final boolean declaredOrder;
  private final RelayListener listener;
  private final AtomicBoolean trustedWithOrder;

  /**
   * @param relay the relay's name, for log lines
   * @param transport the transport's name, for log lines and the listener
   * @param keepsOrder what the transport declares ({@link Transport#keepsOrderWithinBatch()})
   * @param listener told of every broken contract
   */
  TransportConduct(String relay, String transport, boolean keepsOrder, RelayListener listener) {
    this.relay = relay;
    this.transport = transport;
    this.declaredOrder = keepsOrder;
    this.listener = listener;
    this.trustedWithOrder = new AtomicBoolean(keepsOrder);
  }

  static TransportConduct of(RelaySettings settings, Transport t, RelayListener listener) {
    String name =
        t.getClass().getSimpleName().isEmpty()
            ? t.getClass().getName()
            : t.getClass().getSimpleName();
    return new TransportConduct(settings.name, name, t.keepsOrderWithinBatch(), listener);
  }

  /** Whether the transport declared that it keeps order within a batch, trusted or not now. */
  boolean declaredOrder() {
    return declaredOrder;
  }

  /** Whether an aggregate's run may go in one batch: declared, and never seen broken. */
  boolean trustedWithOrder() {
    return trustedWithOrder.get();
  }

  /**
   * The transport delivered an event after an earlier one of its aggregate in the same batch that
   * it did not deliver.
   */
  void brokeOrder(String eventId, String aggregate) {
    boolean first = trustedWithOrder.getAndSet(false);
    report(
        "transport "
            + transport
            + " delivered event "
            + eventId
            + " of aggregate "
            + aggregate
            + " although an earlier event of that aggregate in the same batch was not delivered,"
            + " after declaring that it keeps order within a batch"
            + (first
                ? "; the relay sends runs in waves of one event per aggregate from now on"
                : ""));
  }

  /** The transport answered a batch with a number of results other than its messages'. */
  void wrongSize(int messages, String answer) {
    report(
        "transport "
            + transport
            + " answered a batch of "
            + messages
            + " messages with "
            + answer
            + " (the contract is one result per message, in order); the relay sends them one at a"
            + " time instead, so events it had delivered are sent again");
  }

  private void report(String problem) {
    log.error("[{}] transport bug: {}", relay, problem);
    HealthMonitor.call(relay, () -> listener.transportMisbehaved(problem));
  }
}
