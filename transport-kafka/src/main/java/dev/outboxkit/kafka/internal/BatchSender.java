package dev.outboxkit.kafka.internal;

import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.kafka.internal.Classifier.Category;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends a batch the pipelined way: hand every record to the producer, then wait for all
 * acknowledgements together under one deadline, then classify each outcome.
 *
 * <p>Per-aggregate order inside a batch: once an event is known to have failed, later events of the
 * same aggregate in the batch are not handed to the producer at all (they come back as retry), so a
 * later event can never overtake an earlier one that failed before it was sent. The producer's
 * idempotence keeps the order of what was sent within each partition, but it goes on writing the
 * records queued after one the broker refused. So the broker's one refusal of a single record, its
 * size, is found before sending: a record whose batch of one ({@link RecordSize}) exceeds the
 * topic's {@code max.message.bytes} ({@link TopicLimits}) is rejected without being sent. Where
 * that cannot be known for sure (the limit is unknown, or compression may change the size near or
 * above the limit), the record is a <em>gate</em>: the aggregate's later records of the batch are
 * handed to the producer only after Kafka acknowledged it, and not at all if it failed. Other
 * aggregates' records do not wait.
 *
 * <p>Interrupts: {@code producer.send} notices an interrupt only while it blocks (for metadata or
 * buffer memory), so the loop checks the flag itself before each record and hands nothing more to
 * the producer once it is set. The wait for acknowledgements ends at once; what was acknowledged is
 * delivered (outside a transaction), the rest unavailable. Records already handed over cannot be
 * recalled: the producer may still deliver them, so their retry may duplicate them.
 */
public final class BatchSender {
  private static final Logger log = LoggerFactory.getLogger(BatchSender.class);

  /** Outcome marker: the broker acknowledged the record. */
  private static final Object ACKED = new Object();

  private final String name;
  private final BatchLog batchLog;
  private final ProducerHandle handle;
  private final Function<OutboxEvent, String> router;
  private final Duration sendTimeout;
  // A producer has at most one open transaction: transactional batches take turns.
  private final ReentrantLock transactionLock = new ReentrantLock();
  private final RefusedTopics refusedTopics = new RefusedTopics(System::nanoTime);
  private final TopicLimits limits;
  private final boolean producerMayCompress;
  private final long maxRequestSize;

  /** The longest a batch waits for a topic's size limit the first time it meets the topic. */
  static final Duration FIRST_LIMIT_WAIT = Duration.ofSeconds(5);

  /**
   * @param name for log lines
   * @param handle the producer
   * @param router the topic of an event (destination, router function or default rule)
   * @param sendTimeout the deadline of a whole batch, from the call to the last acknowledgement
   */
  public BatchSender(
      String name,
      ProducerHandle handle,
      Function<OutboxEvent, String> router,
      Duration sendTimeout) {
    this.name = name;
    this.batchLog = new BatchLog(name);
    this.handle = handle;
    this.router = router;
    this.sendTimeout = sendTimeout;
    this.limits = new TopicLimits(name, handle.adminConfig(), System::nanoTime);
    this.producerMayCompress = handle.mayCompress();
    this.maxRequestSize = handle.maxRequestSize();
    if (handle.adminConfig() == null) {
      log.info(
          "[{}] borrowed producer: topics' size limits are not read, so an aggregate's next event"
              + " in a batch is sent only after Kafka acknowledged the previous one",
          name);
    }
  }

  /** Closes the Admin client that reads topics' size limits, if one was created. */
  public void close() {
    limits.close();
  }

  /**
   * Sends the batch and returns one result per message, in order.
   *
   * @param batch the messages, at least one (the transport answers an empty batch itself)
   * @return the results
   */
  public List<SendResult> send(List<OutboxMessage> batch) {
    if (!handle.transactional()) {
      return new Attempt(batch, false).run();
    }
    transactionLock.lock();
    try {
      return new Attempt(batch, true).run();
    } finally {
      transactionLock.unlock();
    }
  }

  /** One call of {@link #send}: the state shared between the sending thread and callbacks. */
  private final class Attempt {
    private final List<OutboxMessage> batch;
    private final int size;
    private final boolean transactional;
    private final long startNanos = System.nanoTime();
    private final long deadlineNanos = startNanos + sendTimeout.toNanos();
    private final Producer<String, byte[]> producer = handle.current();
    // null while pending; ACKED; a Throwable (failed); or a SendResult decided before sending.
    private final AtomicReferenceArray<Object> outcome;
    private final CountDownLatch done;
    private final String[] topics;
    // Retry results decided before sending that are the event's own fault (its topic router
    // failed): they show the failure was not the outage's doing.
    private final boolean[] ownFault;
    // Aggregates with a known failure in this batch -> the event that failed first.
    private final Map<String, UUID> failedAggregates = new ConcurrentHashMap<>();
    // Topics whose metadata could not be had: do not block max.block.ms again for each record.
    private final Map<String, Throwable> failedTopics = new HashMap<>();
    // Set when a record handed to the producer (or refused by it) failed: a transaction must abort.
    private volatile boolean producerFailed;
    // The record whose failure came first: in a transaction, the producer then fails every record
    // still queued with that same exception, which says nothing about those records.
    private final AtomicInteger firstFailure = new AtomicInteger(-1);
    // Set on the sending thread once it saw the interrupt (before or while waiting).
    private boolean interrupted;
    // Set on the sending thread: no later record can be sent (interrupt, broken producer...).
    private Throwable stop;
    // Bytes of each record alone in an uncompressed batch; 0 until measured.
    private final long[] sizes;
    // Counted down when a gate's outcome is known: its aggregate's next record may go (or not).
    private final CountDownLatch[] gateOutcomes;
    // Records expected to fit the topic's known limit for sure, handed to the producer.
    private final boolean[] predictedFit;
    // The topic's max.message.bytes when the record was sent; -1 unknown.
    private final int[] limitAtSend;
    // Records the producer failed inside send(), before anything left for the broker.
    private final boolean[] failedInSend;
    private final Thread sendingThread = Thread.currentThread();
    // The record being handed over by send() on the sending thread, -1 between calls.
    private volatile int handingOver = -1;

    Attempt(List<OutboxMessage> batch, boolean transactional) {
      this.batch = batch;
      this.size = batch.size();
      this.transactional = transactional;
      this.outcome = new AtomicReferenceArray<>(size);
      this.done = new CountDownLatch(size);
      this.topics = new String[size];
      this.ownFault = new boolean[size];
      this.sizes = new long[size];
      this.gateOutcomes = new CountDownLatch[size];
      this.predictedFit = new boolean[size];
      this.limitAtSend = new int[size];
      this.failedInSend = new boolean[size];
    }

    List<SendResult> run() {
      boolean began = !transactional || beginTransaction();
      if (began) {
        sendAll();
      }
      awaitAll();
      boolean committed = !transactional || (began && endTransaction());
      return results(committed);
    }

    private boolean beginTransaction() {
      try {
        handle.ensureTransactionsInitialized(producer);
        producer.beginTransaction();
        return true;
      } catch (RuntimeException e) {
        for (int i = 0; i < size; i++) {
          fail(i, e);
        }
        return false;
      }
    }

    /**
     * Hands the records to the producer in batch order. A record behind its aggregate's gate that
     * is not acknowledged yet waits for the next pass; between passes the sending thread waits for
     * the gate of the first waiting record (each pass so sends at least one more, until the
     * deadline or an interrupt ends them all).
     */
    private void sendAll() {
      // Aggregate -> index of its gate last sent, until a later record of it finds the outcome.
      Map<String, Integer> openGates = new HashMap<>();
      List<Integer> todo = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        todo.add(i);
      }
      while (!todo.isEmpty()) {
        List<Integer> waiting = new ArrayList<>();
        // Aggregates with a record waiting in this pass: their later records wait too, even if the
        // gate's acknowledgement arrives in the meantime, or they would overtake it.
        Set<String> waitingAggregates = new HashSet<>();
        for (int i : todo) {
          String aggregate = aggregateKey(batch.get(i).event());
          if (waitingAggregates.contains(aggregate)) {
            waiting.add(i);
          } else if (!sendOne(i, openGates)) {
            waiting.add(i);
            waitingAggregates.add(aggregate);
          }
        }
        if (!waiting.isEmpty()) {
          awaitGate(openGates.get(aggregateKey(batch.get(waiting.get(0)).event())));
        }
        todo = waiting;
      }
    }

    private void awaitGate(int gate) {
      long remaining = deadlineNanos - System.nanoTime();
      if (remaining <= 0) {
        return;
      }
      try {
        gateOutcomes[gate].await(remaining, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the next pass sees it and sends nothing more
      }
    }

    /**
     * Sends the record, or decides its result without sending it. False when it must wait for the
     * acknowledgement of its aggregate's gate: it is then left for the next pass.
     */
    private boolean sendOne(int i, Map<String, Integer> openGates) {
      String aggregate = aggregateKey(batch.get(i).event());
      if (stopped(i)) {
        return true;
      }
      Integer gate = openGates.get(aggregate);
      if (gate != null) {
        Object gateOutcome = outcome.get(gate);
        if (gateOutcome == null) {
          return timedOutBehindGate(i, gate);
        }
        openGates.remove(aggregate);
        if (gateOutcome != ACKED) {
          UUID gateId = batch.get(gate).event().id();
          decide(
              i,
              aggregate,
              heldBack("not sent: event " + gateId + " of the same aggregate failed before it"));
          return true;
        }
      }
      ProducerRecord<String, byte[]> record = recordToSend(i, aggregate);
      if (record == null) {
        return true;
      }
      TopicLimits.Limit limit = limitUnlessTooLarge(i, aggregate, record);
      if (limit == null) {
        return true;
      }
      boolean isGate = !limit.known() || mayExceed(sizes[i], limit);
      predictedFit[i] = !isGate;
      limitAtSend[i] = limit.maxMessageBytes;
      if (Thread.currentThread().isInterrupted()) {
        // Interrupted while the router ran or the limit was read: send() itself would not notice.
        stop = notSentInterrupted();
        fail(i, stop);
        return true;
      }
      if (isGate) {
        gateOutcomes[i] = new CountDownLatch(1); // before send: the callback may run inline
      }
      if (!handOver(i, record, aggregate)) {
        return true;
      }
      if (isGate) {
        openGates.put(aggregate, i);
      }
      afterHandOver(i);
      return true;
    }

    /**
     * True (and the record failed) when nothing more may be sent: an interrupt, a broken producer.
     */
    private boolean stopped(int i) {
      if (stop == null && Thread.currentThread().isInterrupted()) {
        stop = notSentInterrupted();
      }
      if (stop != null) {
        fail(i, stop);
        return true;
      }
      return false;
    }

    /**
     * For a record whose aggregate's gate is not acknowledged yet: true (and the record failed) if
     * the deadline passed, false to leave it for the next pass.
     */
    private boolean timedOutBehindGate(int i, int gate) {
      if (System.nanoTime() - deadlineNanos > 0) {
        fail(
            i,
            new NotSent(
                "not sent: the batch's sendTimeout of "
                    + sendTimeout
                    + " passed while event "
                    + batch.get(gate).event().id()
                    + " of the same aggregate awaited Kafka's acknowledgement"));
        return true;
      }
      return false;
    }

    /**
     * The record of the event, its topic noted; null when its result is decided without sending it
     * (its aggregate failed, the deadline passed, its topic cannot be had or is refused).
     */
    private ProducerRecord<String, byte[]> recordToSend(int i, String aggregate) {
      UUID blocker = failedAggregates.get(aggregate);
      if (blocker != null) {
        decide(
            i,
            aggregate,
            heldBack("not sent: event " + blocker + " of the same aggregate failed before it"));
        return null;
      }
      if (System.nanoTime() - deadlineNanos > 0) {
        fail(
            i,
            new TimeoutException(
                "not sent: the batch's sendTimeout of " + sendTimeout + " passed first"));
        return null;
      }
      ProducerRecord<String, byte[]> record = routed(i, aggregate);
      if (record == null) {
        return null;
      }
      Throwable topicFailure = failedTopics.get(topics[i]);
      if (topicFailure != null) {
        fail(i, topicFailure);
        return null;
      }
      SendResult refused = refusedTopics.answerWithoutSending(topics[i]);
      if (refused != null) {
        decide(i, aggregate, refused); // no metadata wait for a topic refused moments ago
        return null;
      }
      return record;
    }

    /** The record for the topic the router names; null when the event or the router failed. */
    private ProducerRecord<String, byte[]> routed(int i, String aggregate) {
      OutboxEvent event = batch.get(i).event();
      try {
        topics[i] = Records.checkTopic(router.apply(event));
        return Records.toRecord(event, topics[i]);
      } catch (Records.EventRefusedException e) {
        decide(i, aggregate, SendResult.reject(Failures.truncate(e.getMessage())));
        return null;
      } catch (RuntimeException e) {
        // A topic router that throws: possibly passing (a lookup that failed), so retry.
        ownFault[i] = true;
        decide(
            i,
            aggregate,
            SendResult.retry(
                Failures.truncate("topic router failed: " + Failures.describe(e)), null));
        return null;
      }
    }

    /**
     * Measures the record and reads its topic's size limit; null when the record is rejected
     * because the broker would surely refuse it.
     */
    private TopicLimits.Limit limitUnlessTooLarge(
        int i, String aggregate, ProducerRecord<String, byte[]> record) {
      sizes[i] = RecordSize.ofBatchOfOne(record);
      TopicLimits.Limit limit =
          limits.get(
              topics[i], Math.min(FIRST_LIMIT_WAIT.toNanos(), deadlineNanos - System.nanoTime()));
      if (limit.known()
          && sizes[i] > limit.maxMessageBytes
          && !producerMayCompress
          && sizes[i] <= maxRequestSize) {
        // (Above max.request.size the producer refuses it itself inside send, before anything
        // leaves, and names that setting; in a transaction its refusal aborts the batch.)
        // The broker checks the batch as it arrives, uncompressed: it would refuse this one, and
        // the producer would go on writing the aggregate's later records after it.
        decide(i, aggregate, SendResult.reject(tooLarge(i, limit)));
        return null;
      }
      return limit;
    }

    /** Hands the record to the producer. False when send() threw: the record failed. */
    private boolean handOver(int i, ProducerRecord<String, byte[]> record, String aggregate) {
      UUID id = batch.get(i).event().id();
      handingOver = i;
      try {
        producer.send(record, (metadata, exception) -> onCompletion(i, aggregate, id, exception));
      } catch (RuntimeException e) {
        handingOver = -1;
        failedInSend[i] = true;
        fail(i, e);
        predictedFit[i] = false;
        Category c = Classifier.classify(e);
        if (c == Category.PRODUCER_FATAL
            || c == Category.INTERRUPTED
            || c == Category.CONFIGURATION) {
          stop = e; // every later send would fail the same way
        }
        return false;
      }
      handingOver = -1;
      return true;
    }

    /**
     * The producer's callback. Runs on its I/O thread (or inline for failures found in send): keep
     * it short.
     */
    private void onCompletion(int i, String aggregate, UUID id, Exception exception) {
      if (outcome.compareAndSet(i, null, exception == null ? ACKED : exception)) {
        if (exception != null) {
          failedInSend[i] = handingOver == i && Thread.currentThread() == sendingThread;
          failedAggregates.putIfAbsent(aggregate, id);
          firstFailure.compareAndSet(-1, i);
          producerFailed = true;
        }
        outcomeKnown(i);
      }
    }

    /** After send() returned: what a failure it found inline means for the records to come. */
    private void afterHandOver(int i) {
      Object now = outcome.get(i);
      if (now instanceof Throwable) {
        // Failed inside send(): metadata, size or topic trouble, found before anything left.
        predictedFit[i] = false;
        Throwable failure = (Throwable) now;
        if (Classifier.classify(failure) == Category.CONFIGURATION) {
          stop = failure; // refused credentials: no other topic fares better
        }
        if (isTopicWide(failure)) {
          failedTopics.put(topics[i], failure);
          if (Classifier.classify(failure) == Category.CONNECTIVITY && noConnection()) {
            stop = failure; // no broker reachable at all: the other topics would block too
          }
        }
      }
      if (transactional && producerFailed) {
        // The transaction will be aborted: sending more would only be rolled back.
        stop = rolledBack();
      }
    }

    /**
     * True when compression (the producer's, or the broker's own codec for the topic) may make the
     * batch the broker checks larger or smaller than measured, and the measure is too close to the
     * limit or above it to tell: compressed, a record above the limit may well fit; incompressible,
     * one just below may grow past it by a codec's framing. The margin, 1/64 of the size plus 1
     * KiB, is well above what any of Kafka's codecs adds to data it cannot compress.
     */
    private boolean mayExceed(long bytes, TopicLimits.Limit limit) {
      if (!producerMayCompress && !limit.brokerCompresses()) {
        return false; // the measure is exact
      }
      return bytes + bytes / 64 + 1024 > limit.maxMessageBytes;
    }

    /**
     * The reason of a record the broker refused for its size, with the measure: a refusal the
     * transport foresaw only as possible (a gate), or did not foresee (the topic's limit changed
     * since it was read, which is then read again).
     */
    private String sizeRefused(int i, String reason) {
      if (predictedFit[i]) {
        limits.forget(topics[i]);
        log.warn(
            "[{}] Kafka refused event {} for its size although its {} bytes were below topic {}'s"
                + " max.message.bytes of {} as last read; the limit is read again. Later events of"
                + " its aggregate in the same batch may have been written before the refusal",
            name,
            batch.get(i).event().id(),
            sizes[i],
            topics[i],
            limitAtSend[i]);
      }
      return Failures.truncate(
          reason
              + " (the record takes "
              + sizes[i]
              + " bytes uncompressed with its batch overhead; topic "
              + topics[i]
              + (limitAtSend[i] >= 0
                  ? " accepts at most " + limitAtSend[i] + " bytes (max.message.bytes))"
                  : "'s max.message.bytes could not be read)"));
    }

    /** The reason of a record refused before sending because the topic would refuse it. */
    private String tooLarge(int i, TopicLimits.Limit limit) {
      return Failures.truncate(
          // Named as Kafka's own refusal would be, so alerts that match it keep working.
          "too large for Kafka (RecordTooLargeException, found before sending): topic "
              + topics[i]
              + " accepts at most "
              + limit.maxMessageBytes
              + " bytes (max.message.bytes) and the record takes "
              + sizes[i]
              + " (key, value, headers and batch overhead); shrink the event or raise the topic's"
              + " max.message.bytes, then replay it");
    }

    /**
     * Waits for every pending acknowledgement until the deadline, or until interrupted (at once if
     * the interrupt came earlier, the flag kept).
     */
    private void awaitAll() {
      boolean all = false;
      if (Thread.currentThread().isInterrupted()) {
        interrupted = true; // no wait: take what has been acknowledged by now
      } else {
        try {
          long remaining = deadlineNanos - System.nanoTime();
          all = remaining > 0 && done.await(remaining, TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          interrupted = true;
        }
      }
      all = all || done.getCount() == 0;
      if (!all) {
        // Still in the producer: it may deliver them later, so a retry may duplicate them, which
        // at-least-once allows. Reporting them delivered now would not be allowed.
        Throwable late =
            interrupted
                ? new Interrupted(
                    transactional
                        ? NOT_COMMITTED_INTERRUPTED
                        : "not confirmed: interrupted before Kafka acknowledged it (the producer"
                            + " may still deliver it)")
                : new TimeoutException(
                    "no acknowledgement from Kafka within the sendTimeout of " + sendTimeout);
        for (int i = 0; i < size; i++) {
          outcome.compareAndSet(i, null, late);
        }
      }
    }

    /** The failure of the records not handed to the producer because of an interrupt. */
    private Interrupted notSentInterrupted() {
      interrupted = true;
      return new Interrupted("not confirmed: interrupted before it was sent");
    }

    /**
     * Commits when every record handed to the producer was acknowledged, else aborts. Events
     * refused or held back before sending never joined the transaction and do not stop the commit.
     * True if committed. After an interrupt it does not commit: that would start a wait for the
     * coordinator (and one the interrupt would cut short at once, leaving the outcome open).
     */
    private boolean endTransaction() {
      if (Thread.currentThread().isInterrupted()) {
        interrupted = true;
      }
      boolean commit = !interrupted;
      for (int i = 0; i < size && commit; i++) {
        Object o = outcome.get(i);
        commit = o == ACKED || o instanceof SendResult;
      }
      if (commit) {
        try {
          producer.commitTransaction();
          return true;
        } catch (RuntimeException e) {
          for (int i = 0; i < size; i++) {
            if (outcome.get(i) == ACKED) {
              outcome.set(i, e); // acknowledged but not committed: not delivered
            }
          }
        }
      }
      try {
        producer.abortTransaction();
      } catch (RuntimeException e) {
        // A producer that cannot abort cannot start the next transaction either. A new one with
        // the same transactional.id fences this one and makes the coordinator abort its work.
        handle.replace(producer, e);
      }
      return false;
    }

    private List<SendResult> results(boolean committed) {
      Verdicts v = new Verdicts(size);
      int first = firstFailure.get();
      Throwable firstCause =
          transactional && !committed && first >= 0 && outcome.get(first) instanceof Throwable
              ? (Throwable) outcome.get(first)
              : null;
      for (int i = 0; i < size; i++) {
        Object o = outcome.get(i);
        if (o instanceof Interrupted) {
          v.categories[i] = Category.INTERRUPTED;
          v.results[i] = SendResult.unavailable(((Interrupted) o).getMessage());
        } else if (firstCause != null && i != first && isCollateral(o, firstCause)) {
          v.results[i] = notCommitted();
        } else if (o == ACKED) {
          v.anyAcked = true;
          refusedTopics.accepted(topics[i]);
          v.results[i] = committed ? SendResult.delivered() : notCommitted();
        } else if (o instanceof SendResult) {
          v.results[i] = (SendResult) o;
        } else if (o instanceof NotSent) {
          v.results[i] = heldBack(((NotSent) o).getMessage());
        } else {
          v.results[i] = failed(i, (Throwable) o, v);
        }
      }
      boolean unreachable = unreachable(v);
      if (unreachable) {
        String reason = Failures.truncate("Kafka unreachable: " + v.connectivityReason);
        for (int i = 0; i < size; i++) {
          if (v.results[i].status() == SendResult.Status.RETRY) {
            v.results[i] = SendResult.unavailable(reason);
          }
        }
      }
      if (v.fatal != null) {
        handle.replace(producer, v.fatal);
      }
      List<SendResult> list = List.of(v.results);
      batchLog.batch(batch, list, v.categories, topics, unreachable, interrupted, startNanos);
      return list;
    }

    /** The result of an event the transaction did not commit although Kafka took its record. */
    private SendResult notCommitted() {
      return interrupted
          ? SendResult.unavailable(NOT_COMMITTED_INTERRUPTED)
          : heldBack(rolledBack().getMessage());
    }

    /** The result of a record that failed, noting what its failure says about the batch. */
    private SendResult failed(int i, Throwable failure, Verdicts v) {
      Category c = Classifier.classify(failure);
      v.categories[i] = c;
      String reason = Classifier.reason(c, failure);
      if (c == Category.REJECT
          && !failedInSend[i]
          && sizes[i] > 0
          && Classifier.unwrap(failure) instanceof RecordTooLargeException) {
        reason = sizeRefused(i, reason);
      }
      if (c == Category.CONNECTIVITY && v.connectivityReason == null) {
        v.connectivityReason = reason;
      }
      if (Classifier.breaksProducer(failure) && v.fatal == null) {
        v.fatal = failure;
      }
      SendResult result = toResult(c, reason, topics[i]);
      if (result.scope().isPresent() && v.refusedThisBatch.add(topics[i])) {
        refusedTopics.refused(topics[i], result);
      }
      return result;
    }

    /**
     * Unavailable, not retry, when the outage explains every failure: nothing but connection
     * symptoms (and events left out because of them), and the producer holds no connection to any
     * broker now. Events the broker acknowledged before it went away stay delivered.
     */
    private boolean unreachable(Verdicts v) {
      boolean unreachable = v.connectivityReason != null;
      for (int i = 0; i < size && unreachable; i++) {
        boolean hard =
            ownFault[i]
                || v.categories[i] != null
                    && v.categories[i] != Category.CONNECTIVITY
                    && v.categories[i] != Category.INTERRUPTED;
        unreachable = !(hard && v.results[i].status() == SendResult.Status.RETRY);
      }
      if (unreachable) {
        OptionalDouble connections = handle.connectionCount();
        unreachable =
            connections.isPresent()
                ? connections.getAsDouble() < 1
                // Without the metric (not a KafkaProducer) only a batch of which nothing was
                // acknowledged counts as an outage.
                : !v.anyAcked;
      }
      return unreachable;
    }

    private SendResult toResult(Category c, String reason, String topic) {
      switch (c) {
        case MISSING_TOPIC:
        case REJECT_SECURITY:
          // One topic's outage: its events wait, uncharged, and the other topics flow.
          return topic == null
              ? SendResult.retry(reason, null)
              : SendResult.unavailable(reason, RefusedTopics.scope(topic));
        case REJECT:
          return SendResult.reject(reason);
        case INTERRUPTED:
        case CONFIGURATION:
          return SendResult.unavailable(reason);
        case PRODUCER_FATAL:
          if (handle.owned()) {
            return SendResult.retry(
                Failures.truncate(reason + " (the producer is being recreated)"), null);
          }
          return SendResult.unavailable(
              Failures.truncate(
                  reason + " (the producer given to the transport is unusable; replace it)"));
        case CONNECTIVITY:
        case RETRY:
        default:
          return SendResult.retry(reason, null);
      }
    }

    private void fail(int i, Throwable failure) {
      if (outcome.compareAndSet(i, null, failure)) {
        if (!(failure instanceof NotSent) && !(failure instanceof Interrupted)) {
          firstFailure.compareAndSet(-1, i);
          producerFailed = true;
        }
        failedAggregates.putIfAbsent(aggregateKey(batch.get(i).event()), batch.get(i).event().id());
        outcomeKnown(i);
      }
    }

    private void outcomeKnown(int i) {
      CountDownLatch gate = gateOutcomes[i];
      if (gate != null) {
        gate.countDown();
      }
      done.countDown();
    }

    private void decide(int i, String aggregate, SendResult result) {
      if (outcome.compareAndSet(i, null, result)) {
        failedAggregates.putIfAbsent(aggregate, batch.get(i).event().id());
        outcomeKnown(i);
      }
    }

    private boolean noConnection() {
      OptionalDouble count = handle.connectionCount();
      // Without the metric, the symptoms alone decide.
      return count.isEmpty() || count.getAsDouble() < 1;
    }
  }

  /** What the results of one batch say about the batch as a whole, gathered while deciding them. */
  private static final class Verdicts {
    final SendResult[] results;
    final Category[] categories;
    // Topics whose refusal this batch already recorded.
    final Set<String> refusedThisBatch = new HashSet<>();
    boolean anyAcked;
    String connectivityReason;
    // The first failure that leaves the producer unusable.
    Throwable fatal;

    Verdicts(int size) {
      results = new SendResult[size];
      categories = new Category[size];
    }
  }

  private static final String NOT_COMMITTED_INTERRUPTED =
      "not confirmed: interrupted before the Kafka transaction committed";

  private static SendResult heldBack(String reason) {
    return SendResult.retry(reason, null);
  }

  private static NotSent rolledBack() {
    return new NotSent(
        "not delivered: another event in the same Kafka transaction failed, so it was rolled back");
  }

  /**
   * A record left out of the batch (or rolled back) because of another record's failure: not this
   * event's fault, so it never proves on its own that the broker answered or not.
   */
  private static final class NotSent extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotSent(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * The outcome of a record the interrupt left unconfirmed: not handed to the producer, or handed
   * over and not acknowledged when the wait ended. Unavailable, with this reason.
   */
  private static final class Interrupted extends InterruptedException {
    private static final long serialVersionUID = 1L;

    Interrupted(String reason) {
      super(reason);
    }
  }

  /**
   * True for a failure a transactional producer gave a record only because the transaction was
   * already doomed: the first failure itself (or its wrapper), or "transaction aborted".
   */
  private static boolean isCollateral(Object outcome, Throwable firstCause) {
    if (!(outcome instanceof Throwable)) {
      return false;
    }
    Throwable t = Classifier.unwrap((Throwable) outcome);
    return t == firstCause
        || t.getCause() == firstCause
        || t instanceof TransactionAbortedException
        || t instanceof NotSent;
  }

  private static String aggregateKey(OutboxEvent event) {
    return event.aggregateType() + '\u0000' + event.aggregateId();
  }

  /** Failures that concern the topic, not the record: every record for the topic would get them. */
  private static boolean isTopicWide(Throwable failure) {
    Category c = Classifier.classify(failure);
    return c == Category.MISSING_TOPIC
        || c == Category.CONNECTIVITY
        || c == Category.REJECT_SECURITY
        || c == Category.CONFIGURATION
        || Classifier.unwrap(failure) instanceof InvalidTopicException;
  }
}
