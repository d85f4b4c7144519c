package dev.outboxkit.benchmarks;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import java.util.List;

/**
 * One kind of broker in scenario 3: fresh destinations, the library's transport to one, the raw
 * client sending the same messages to one, and a count of what arrived, taken at the broker or
 * receiver so a broken run cannot report a figure.
 */
interface BrokerTarget extends AutoCloseable {
  /** Row label, e.g. "Kafka". */
  String name();

  /** What runs and how, for the section text. */
  String describe();

  /** Events per round. */
  int events(boolean quick);

  /** Creates (or names) a destination no round has used. */
  String newDestination() throws Exception;

  /** The library's transport, sending every event to {@code destination}; the caller closes it. */
  Transport transport(String destination);

  /**
   * Sends the events to {@code destination} with the raw client at its best and waits until every
   * one is confirmed.
   *
   * @return seconds from the first send to the last confirmation (client set-up excluded)
   */
  double sendRaw(String destination, List<OutboxEvent> events, int batchSize) throws Exception;

  /** Messages that arrived at {@code destination}. */
  long arrived(String destination) throws Exception;

  /** Stops the broker or receiver. */
  @Override
  void close();
}
