package dev.outboxkit.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link Transport} must keep, as JUnit 5 tests: extend this class in your
 * transport's tests, say how to make it and how to read what its destination received, and the
 * tests run against your real broker or endpoint.
 *
 * <pre>{@code
 * class LedgerTransportContractTest extends TransportContract {
 *   protected Transport newTransport() { return new LedgerTransport(ledgerUrl); }
 *   protected Transport newUnreachableTransport() { return new LedgerTransport(closedPortUrl); }
 *   protected List<UUID> receivedIds() { return ledger.readAll().stream().map(...).toList(); }
 * }
 * }</pre>
 *
 * <p>What it checks: one result per message, in order, for every batch and the empty one; failures
 * come back as results (never thrown); the event id reaches the destination unchanged on every
 * attempt (consumers deduplicate on it); after {@code close()} every message is answered {@link
 * SendResult#unavailable(String)}; concurrent {@code sendBatch} calls are safe; and a transport
 * that declares {@link Transport#keepsOrderWithinBatch()} keeps that promise after a failure in the
 * middle of an aggregate's run. The tests are final: a transport passes them as they are.
 */
public abstract class TransportContract {
  private final List<Transport> opened = new ArrayList<>();
  private Transport transport;

  /** For subclasses: one per transport under test. */
  protected TransportContract() {}

  /**
   * A transport connected to a working destination. Called once per test; the kit closes it after
   * the test.
   *
   * @return a new transport
   * @throws Exception if it cannot be made
   */
  protected abstract Transport newTransport() throws Exception;

  /**
   * A transport whose destination cannot be reached (a closed port, a host that does not resolve),
   * with short timeouts of its own: its sends must come back as results within {@link
   * #sendTimeout()}.
   *
   * @return a new transport
   * @throws Exception if it cannot be made
   */
  protected abstract Transport newUnreachableTransport() throws Exception;

  /**
   * The ids of the events the destination received so far, in any order, a duplicate as often as it
   * arrived — read as a consumer reads them (the header or property that carries the id).
   *
   * @return the ids received
   * @throws Exception if the destination cannot be read
   */
  protected abstract List<UUID> receivedIds() throws Exception;

  /**
   * An event for the tests; override to add what your destination needs (a destination, a tenant, a
   * routing header).
   *
   * @param aggregateId its aggregate
   * @param n a number unique within the test, in the payload and the {@code n} header
   * @return the event
   */
  protected OutboxEvent event(String aggregateId, int n) {
    return OutboxEvent.builder("ContractTest", aggregateId, "Tested")
        .payload("{\"n\":" + n + "}")
        .header("n", Integer.toString(n))
        .build();
  }

  /**
   * An event your destination refuses for good (e.g. one too large for the broker), to check that a
   * transport keeping order sends none of its aggregate's later events of the batch; null (the
   * default) skips that test.
   *
   * @param aggregateId its aggregate
   * @return the event, or null
   */
  protected OutboxEvent refusedEvent(String aggregateId) {
    return null;
  }

  /**
   * How long one send may take at most in these tests (default 30 s): a transport that blocks
   * longer fails the test.
   *
   * @return the limit
   */
  protected Duration sendTimeout() {
    return Duration.ofSeconds(30);
  }

  /**
   * How long the destination may take to show a delivered event in {@link #receivedIds()} (default
   * 10 s).
   *
   * @return the limit
   */
  protected Duration receiveTimeout() {
    return Duration.ofSeconds(10);
  }

  @BeforeEach
  final void openTransport() throws Exception {
    transport = open(newTransport());
  }

  @AfterEach
  final void closeTransports() {
    for (Transport t : opened) {
      try {
        t.close();
      } catch (RuntimeException e) {
        // Closing twice must be harmless; a failure here is not what the test is about.
      }
    }
    opened.clear();
  }

  @Test
  final void answers_each_message_of_a_batch_in_order() throws Exception {
    List<OutboxMessage> batch = messages(5, i -> "agg-" + i);

    List<SendResult> results = send(transport, batch);

    assertEquals(batch.size(), results.size(), "one result per message");
    for (int i = 0; i < results.size(); i++) {
      assertTrue(results.get(i).isDelivered(), "message " + i + ": " + results.get(i));
    }
    awaitReceived(ids(batch));
  }

  @Test
  final void answers_an_empty_batch_with_no_result() {
    assertEquals(List.of(), send(transport, List.of()));
  }

  @Test
  final void reports_failures_as_results_never_as_exceptions() throws Exception {
    Transport unreachable = open(newUnreachableTransport());
    List<OutboxMessage> batch = messages(3, i -> "down-" + i);

    List<SendResult> results = send(unreachable, batch);

    assertEquals(batch.size(), results.size(), "one result per message");
    for (SendResult r : results) {
      assertNotNull(r, "a result, not null");
      assertFalse(r.isDelivered(), "nothing delivered to an unreachable destination: " + r);
      assertTrue(r.reason().isPresent(), "a failure says why: " + r);
    }
  }

  @Test
  final void keeps_the_event_id_on_every_attempt() throws Exception {
    OutboxEvent e = event("same-id", 1);

    assertTrue(send(transport, List.of(OutboxMessage.of(e, 1))).get(0).isDelivered());
    assertTrue(send(transport, List.of(OutboxMessage.of(e, 2))).get(0).isDelivered());

    long deadline = System.nanoTime() + receiveTimeout().toNanos();
    while (count(receivedIds(), e.id()) < 2) {
      if (System.nanoTime() - deadline > 0) {
        fail("the destination did not get event " + e.id() + " twice under that id");
      }
      Thread.sleep(20);
    }
  }

  @Test
  final void answers_unavailable_after_close() {
    transport.close();

    List<SendResult> results = send(transport, messages(2, i -> "closed-" + i));

    assertEquals(2, results.size());
    for (SendResult r : results) {
      assertEquals(SendResult.Status.UNAVAILABLE, r.status(), "after close: " + r);
    }
  }

  @Test
  final void is_safe_under_concurrent_batches() throws Exception {
    int threads = 4;
    int batches = 5;
    int size = 10;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<OutboxMessage>>> sent = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        sent.add(
            pool.submit(
                () -> {
                  List<OutboxMessage> all = new ArrayList<>();
                  for (int b = 0; b < batches; b++) {
                    int batch = b;
                    List<OutboxMessage> messages =
                        messages(size, i -> "t" + thread + "-b" + batch + "-" + i);
                    List<SendResult> results = transport.sendBatch(messages);
                    assertEquals(size, results.size(), "one result per message");
                    for (SendResult r : results) {
                      assertTrue(r.isDelivered(), "concurrent batch: " + r);
                    }
                    all.addAll(messages);
                  }
                  return all;
                }));
      }
      Set<UUID> expected = new HashSet<>();
      for (Future<List<OutboxMessage>> f : sent) {
        expected.addAll(ids(f.get(sendTimeout().toMillis() * batches, TimeUnit.MILLISECONDS)));
      }
      awaitReceived(expected);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  final void a_transport_keeping_order_sends_nothing_of_an_aggregate_after_its_failure()
      throws Exception {
    assumeTrue(transport.keepsOrderWithinBatch(), "the transport makes no promise of order");
    OutboxEvent refused = refusedEvent("run");
    assumeTrue(refused != null, "no refusedEvent given");
    OutboxEvent first = event("run", 1);
    OutboxEvent after = event("run", 3);
    OutboxEvent other = event("other", 4);
    List<OutboxMessage> batch = new ArrayList<>();
    for (OutboxEvent e : List.of(first, refused, after, other)) {
      batch.add(OutboxMessage.of(e, 1));
    }

    List<SendResult> results = send(transport, batch);

    assertTrue(results.get(0).isDelivered(), "before the failure: " + results.get(0));
    assertFalse(results.get(1).isDelivered(), "the refused event: " + results.get(1));
    assertFalse(results.get(2).isDelivered(), "after the failure: " + results.get(2));
    assertTrue(results.get(3).isDelivered(), "another aggregate: " + results.get(3));
    Set<UUID> expected = new HashSet<>(List.of(first.id(), other.id()));
    awaitReceived(expected);
    List<UUID> received = receivedIds();
    assertFalse(received.contains(after.id()), "an event after its aggregate's failure arrived");
  }

  private Transport open(Transport t) {
    opened.add(t);
    return t;
  }

  private List<SendResult> send(Transport t, List<OutboxMessage> batch) {
    return assertTimeoutPreemptively(sendTimeout(), () -> t.sendBatch(batch));
  }

  private interface Aggregates {
    String of(int i);
  }

  private List<OutboxMessage> messages(int count, Aggregates aggregates) {
    List<OutboxMessage> all = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      all.add(OutboxMessage.of(event(aggregates.of(i), i), 1));
    }
    return all;
  }

  private static Set<UUID> ids(List<OutboxMessage> messages) {
    Set<UUID> ids = new HashSet<>();
    for (OutboxMessage m : messages) {
      ids.add(m.event().id());
    }
    return ids;
  }

  private void awaitReceived(Set<UUID> expected) throws Exception {
    long deadline = System.nanoTime() + receiveTimeout().toNanos();
    while (true) {
      Set<UUID> missing = new HashSet<>(expected);
      missing.removeAll(receivedIds());
      if (missing.isEmpty()) {
        return;
      }
      if (System.nanoTime() - deadline > 0) {
        fail(missing.size() + " of " + expected.size() + " delivered events never arrived");
      }
      Thread.sleep(20);
    }
  }

  private static long count(List<UUID> ids, UUID id) {
    long n = 0;
    for (UUID u : ids) {
      if (u.equals(id)) {
        n++;
      }
    }
    return n;
  }
}
