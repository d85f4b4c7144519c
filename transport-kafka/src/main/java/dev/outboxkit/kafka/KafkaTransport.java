package dev.outboxkit.kafka;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.internal.Routing;
import dev.outboxkit.internal.TransportGate;
import dev.outboxkit.kafka.internal.BatchSender;
import dev.outboxkit.kafka.internal.ProducerHandle;
import dev.outboxkit.kafka.internal.ProducerSettings;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.clients.producer.Producer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes outbox events to Apache Kafka. Thread-safe; one instance can serve several relays.
 *
 * <pre>{@code
 * KafkaTransport kafka = KafkaTransport.builder(Map.of("bootstrap.servers", "broker:9092"))
 *     .topicRouter(event -> "orders".equals(event.aggregateType()) ? "shop.orders" : null)
 *     .build();
 * OutboxRelay relay = OutboxRelay.builder(dataSource, kafka).build();
 * }</pre>
 *
 * <h2>Producer</h2>
 *
 * <p>{@link #builder(Map)} creates a producer from a config map; the transport owns it: it closes
 * it in {@link #close()} and replaces it when it breaks (closed, fenced, fatal error state). Where
 * the map says nothing, it sets {@code enable.idempotence=true} and {@code acks=all} (so each
 * partition keeps send order across the producer's retries and an acknowledged record survives the
 * loss of a leader), {@code delivery.timeout.ms} = {@link #DEFAULT_DELIVERY_TIMEOUT}, {@code
 * max.block.ms} = {@link #DEFAULT_MAX_BLOCK} (so a dead broker does not block {@code send} for a
 * minute) and {@code request.timeout.ms} = {@link #DEFAULT_REQUEST_TIMEOUT}. {@link
 * #builder(Producer)} uses a producer the caller owns: the transport never closes or replaces it,
 * and its settings are the caller's business (give it the same ones).
 *
 * <p>If the map has a {@code transactional.id}, the transport wraps every batch in one Kafka
 * transaction: a {@code read_committed} consumer then sees a batch all at once or not at all. Any
 * failure of a record aborts the transaction, so the batch's other records come back as retry.
 * Transactional batches take turns on the one producer. Each transport instance needs its own
 * {@code transactional.id}: two producers sharing one fence each other. A borrowed producer must
 * not be transactional (the transport does not run transactions on a producer it does not own).
 *
 * <h2>Records</h2>
 *
 * <p>Key = aggregate id (UTF-8), so the default partitioner keeps an aggregate on one partition;
 * value = payload bytes; headers as listed in {@link KafkaEvents}, then the event's own headers
 * (UTF-8 values). The record timestamp is the send time. A user header whose name is one of the
 * transport's header names is not renamed or dropped: the event is rejected with a reason naming
 * the header, since consumers could not tell which value is the real one.
 *
 * <p>Topic: the {@link Builder#topicRouter(Function) topic router}'s answer if it gives one (it
 * sees every event, also those with a destination, as every OutboxKit transport's router does);
 * else the event's {@link OutboxEvent#destination() destination}; else {@value
 * #DEFAULT_TOPIC_PREFIX} followed by the aggregate type, e.g. {@code outbox.event.Order}. An
 * illegal topic name is rejected at once.
 *
 * <h2>Change data capture</h2>
 *
 * <p>A Debezium connector on the same table publishes the same records as this transport (topic,
 * key, value bytes and every header) through {@code dev.outboxkit.debezium.OutboxEventRouter} in
 * {@code outboxkit-debezium}, so users can switch from the relay to CDC, or back, without consumers
 * noticing; the project's CDC guide (docs/cdc.md) gives the connector configuration and the
 * cut-over steps. The default topic rule, the key and the {@code id} header are also those of
 * Debezium's own Outbox Event Router with its defaults, but that router's values and other headers
 * differ.
 *
 * <h2>Batches</h2>
 *
 * <p>{@link #sendBatch} hands every record to the producer, then waits for all acknowledgements
 * together, bounded by {@link Builder#sendTimeout(Duration) sendTimeout} for the whole batch. An
 * event is reported delivered only once the broker acknowledged it (and, in transactional mode,
 * once the transaction committed). A record still unacknowledged at the deadline is reported as not
 * delivered; the producer may still deliver it, so the next attempt may duplicate it, as
 * at-least-once allows. Keep {@code sendTimeout} at least the producer's {@code
 * delivery.timeout.ms} (so the producer, not the deadline, ends a record's attempt; checked for an
 * owned producer) and below the relay's lease (so no other relay claims the events while they are
 * in flight).
 *
 * <p>Order: the producer's idempotence keeps each partition in send order, and the default {@code
 * max.in.flight.requests.per.connection} (5) is the most idempotence allows. When an event fails
 * before it reaches the broker (too large, unknown topic, refused header), later events of the same
 * aggregate in the batch are not sent and come back as retry, so they cannot overtake it. The
 * broker may still refuse a single record of a batch for its size, above the topic's {@code
 * max.message.bytes}; the producer would then go on writing the records queued after it, and a
 * consumer would see the aggregate with a hole. So the transport measures every record before
 * handing it over (key, value, headers and the batch overhead, as the broker counts them) and
 * compares it with the topic's {@code max.message.bytes} (the topic's override, else the broker's
 * {@code message.max.bytes}), which it reads with an Admin client ({@code DescribeConfigs}, with
 * the producer's connection and security settings) and keeps for a minute. A record above it is
 * rejected without being sent, the reason naming both sizes, and the aggregate's later events of
 * the batch are held back. Where the transport cannot tell beforehand, it sends such a record as a
 * <em>gate</em>: the aggregate's later events of the batch are handed to the producer only after
 * Kafka acknowledged it, and not at all if it was refused; other aggregates do not wait. That is
 * the case
 *
 * <ul>
 *   <li>for every record when the limit cannot be read: a {@link #builder(Producer) borrowed
 *       producer} (the transport does not know its settings), {@code DescribeConfigs} denied to the
 *       principal (logged at WARN once per topic), the broker not answering within 5 seconds the
 *       first time a topic is met; an aggregate's events then take one round trip each;
 *   <li>with compression (the producer's {@code compression.type}, or a codec of the topic's own),
 *       for a record whose uncompressed size is above the limit or within 1/64 of its size plus 1
 *       KiB below it: the broker counts the compressed batch, so such a record may fit (it is not
 *       rejected for a size it might not have) or, incompressible, just miss.
 * </ul>
 *
 * <p>A limit lowered after it was read is seen within a minute, or at once after the broker refused
 * a record the transport expected to fit: then (logged at WARN) later events of that aggregate in
 * the same batch may already have been written. Records carry no timestamp (the producer stamps the
 * send time), so the broker's timestamp checks ({@code message.timestamp.*}) never single out one
 * record of a batch. Order across retries is the relay's job in ordered mode.
 *
 * <p>Interrupts: when the thread in {@link #sendBatch} is interrupted (a relay that gave up on the
 * batch, or is stopping), the transport hands no further record to the producer (it checks the flag
 * before each one: {@code send} itself notices an interrupt only while it blocks for metadata or
 * buffer memory), stops waiting for acknowledgements at once and returns with the interrupt flag
 * set. Events whose acknowledgement had arrived are delivered; all others are {@link
 * SendResult#unavailable(String) unavailable}: "not confirmed: interrupted before it was sent" or,
 * for a record already handed to the producer, "not confirmed: interrupted before Kafka
 * acknowledged it". A Kafka producer cannot recall a record it was given, so those may still be
 * written, and their retry then writes them a second time (consumers deduplicate on the event id
 * header, as at-least-once requires anyway). In transactional mode nothing is confirmed before the
 * commit: an interrupted batch is aborted and every event is unavailable; an interrupt that cuts
 * short the wait for the commit or the abort leaves its outcome to the producer (a commit may still
 * go through), and an owned producer is then replaced, which fences the old one's transaction.
 *
 * <h2>Failures</h2>
 *
 * <table>
 *   <caption>How Kafka failures map to results</caption>
 *   <tr><th>failure</th><th>result</th></tr>
 *   <tr><td>a record larger than the topic's {@code max.message.bytes}, found before sending
 *       (reason {@code "too large for Kafka (RecordTooLargeException, found before sending)…"}),
 *       {@code RecordTooLargeException}, {@code RecordBatchTooLargeException},
 *       {@code SerializationException}, {@code InvalidTopicException} or an illegal topic name,
 *       {@code InvalidRecordException}, a reserved header name</td>
 *       <td>reject, with the reason</td></tr>
 *   <tr><td>{@code AuthenticationException} (SASL, SSL), {@code ClusterAuthorizationException},
 *       {@code TransactionalIdAuthorizationException}</td>
 *       <td>unavailable (no attempt charged, nothing quarantined), logged at ERROR as a
 *       configuration problem once per burst: at the first such batch, and again only after a
 *       batch got through in between</td></tr>
 *   <tr><td>{@code TopicAuthorizationException}, any other {@code AuthorizationException}</td>
 *       <td>unavailable for that topic only ({@link SendResult#scope() scope} {@code "kafka topic
 *       <name>"}), logged at ERROR as a configuration problem</td></tr>
 *   <tr><td>topic does not exist and is not auto-created ({@code TimeoutException} "not present in
 *       metadata" caused by {@code UnknownTopicOrPartitionException})</td>
 *       <td>unavailable for that topic only (scope {@code "kafka topic <name>"}), logged at WARN:
 *       creating the topic fixes it, so the events wait, uncharged, and never go DEAD</td></tr>
 *   <tr><td>{@code TimeoutException}, {@code NetworkException}, {@code DisconnectException}, no
 *       acknowledgement by the batch deadline</td>
 *       <td>retry; but unavailable when the batch had no other kind of failure and the producer
 *       has no open connection to any broker (the broker is down or unreachable: the events are
 *       not charged an attempt). Events acknowledged before the broker went away stay
 *       delivered</td></tr>
 *   <tr><td>producer closed, fenced, or in its fatal state ({@code ProducerFencedException},
 *       {@code OutOfOrderSequenceException}, {@code InvalidProducerEpochException}, ...)</td>
 *       <td>owned producer: it is recreated, results retry; borrowed producer: unavailable, since
 *       only its owner can replace it</td></tr>
 *   <tr><td>the calling thread is interrupted</td><td>events Kafka acknowledged before stay
 *       delivered (in transactional mode none: the transaction is aborted); every other event is
 *       unavailable, "not confirmed: interrupted …" (not the event's fault, no attempt charged).
 *       No further record is handed to the producer; those already handed over may still arrive
 *       and so be duplicated by the retry. The call returns at once, interrupt flag set</td></tr>
 *   <tr><td>any other exception, e.g. a throwing topic router or another retriable broker
 *       error</td><td>retry</td></tr>
 * </table>
 *
 * <p>Security failures are split by reach. A wrong credential, or a principal without the cluster
 * or transactional-id permission the producer needs, fails every event alike: it is an outage of
 * the transport, not a fault of any event, so the events stay PENDING without losing attempts (the
 * relay backs off and probes) and flow as soon as the configuration is fixed. A missing write
 * permission on one topic, or a topic that does not exist, concerns only that topic's events: the
 * relay holds back just them, uncharged, probing with growing pauses, while the other topics keep
 * flowing; they are delivered once the ACL is granted or the topic created. The transport remembers
 * such a topic: until its next check (after 1 s, doubling to 60 s while it stays refused) its
 * events are answered at once, so a missing topic does not make every batch wait {@code
 * max.block.ms} for its metadata. In transactional mode a check that finds the topic still refused
 * aborts that batch's transaction, so the batch's other events are retried.
 *
 * <p>An outage of the cluster (no broker reachable, credentials refused) is the whole transport's:
 * a transport is one producer, so one cluster. To publish to several clusters, give each its own
 * relay (or scope the answers in a routing transport of your own).
 */
public final class KafkaTransport implements Transport {
  private static final Logger log = LoggerFactory.getLogger(KafkaTransport.class);

  /** Prefix of the default topic, followed by the aggregate type: {@value}. As Debezium's. */
  public static final String DEFAULT_TOPIC_PREFIX = "outbox.event.";

  /** Name used in log lines unless set: {@value}. */
  public static final String DEFAULT_NAME = "kafka";

  /**
   * Deadline of one batch, from the call to the last acknowledgement: 25 seconds, below the relay's
   * default {@code sendTimeout} (30 s), so the relay never abandons and resends a batch this
   * transport is still waiting for. Keep it below the relay's if you change either.
   */
  public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofSeconds(25);

  /** How long {@link #close()} lets an owned producer deliver what it holds: 10 seconds. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(10);

  /** {@code delivery.timeout.ms} of an owned producer unless the config sets it: 20 seconds. */
  public static final Duration DEFAULT_DELIVERY_TIMEOUT = Duration.ofSeconds(20);

  /** {@code max.block.ms} of an owned producer unless the config sets it: 5 seconds. */
  public static final Duration DEFAULT_MAX_BLOCK = Duration.ofSeconds(5);

  /** {@code request.timeout.ms} of an owned producer unless the config sets it: 10 seconds. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final ProducerHandle producer;
  private final Function<OutboxEvent, String> topicRouter;
  private final Duration sendTimeout;
  private final Duration closeTimeout;
  private final BatchSender sender;
  private final TransportGate gate;

  private KafkaTransport(Builder b, ProducerHandle producer) {
    this.name = b.name;
    this.producer = producer;
    this.topicRouter = b.topicRouter;
    this.sendTimeout = b.sendTimeout;
    this.closeTimeout = b.closeTimeout;
    this.sender = new BatchSender(name, producer, this::topicOf, sendTimeout);
    this.gate = new TransportGate("Kafka transport '" + name + "'");
  }

  /**
   * Starts a transport that creates and owns its producer.
   *
   * @param producerConfig Kafka producer settings; {@code bootstrap.servers} is required, {@code
   *     key.serializer} and {@code value.serializer} must be absent (the transport sends String
   *     keys and byte[] values). Copied.
   * @return a builder
   */
  public static Builder builder(Map<String, ?> producerConfig) {
    OutboxConfigurationException.requireNonNull(producerConfig, "producerConfig");
    return new Builder(new LinkedHashMap<>(producerConfig), null);
  }

  /**
   * Starts a transport over a producer the caller owns and closes; the transport never closes it.
   * Give it {@code enable.idempotence=true} and {@code acks=all}, no {@code transactional.id}, and
   * a {@code delivery.timeout.ms} no longer than the {@link Builder#sendTimeout(Duration)}. Without
   * the producer's settings the transport cannot read topics' size limits, so within a batch an
   * aggregate's next event is sent only after Kafka acknowledged the previous one (see Order in the
   * class comment): events of different aggregates are still sent together.
   *
   * @param producer a non-transactional producer with String keys and byte[] values
   * @return a builder
   */
  public static Builder builder(Producer<String, byte[]> producer) {
    OutboxConfigurationException.requireNonNull(producer, "producer");
    return new Builder(null, producer);
  }

  /**
   * Sends one event and waits for the broker's acknowledgement, within the send timeout. After
   * {@link #close()} it answers unavailable.
   */
  @Override
  public SendResult send(OutboxMessage message) {
    return gate.sendOne(message, this::sendBatch);
  }

  /**
   * Sends every event of the batch, then waits for all acknowledgements together, within the send
   * timeout. If the calling thread is interrupted, no further record is handed to the producer and
   * the call returns at once with the interrupt flag set: acknowledged events are delivered, the
   * others unavailable. See the class comment for order, interrupts and failure handling.
   *
   * <p>After {@link #close()} every message is answered {@link SendResult#unavailable(String)}, as
   * by every OutboxKit transport: the relay holds such events back uncharged.
   */
  @Override
  public List<SendResult> sendBatch(List<OutboxMessage> batch) {
    return gate.send(batch, sender::send);
  }

  /**
   * True: the records of one aggregate share a key, so a partition, where the idempotent producer
   * keeps their order; once one of them is not delivered, none after it in the batch is written: a
   * failure before sending holds the later ones back, a record the topic would refuse for its size
   * is refused before sending, and one whose fate only the broker can tell makes the later ones
   * wait for its acknowledgement (see the class comment, Order).
   */
  @Override
  public boolean keepsOrderWithinBatch() {
    return true;
  }

  /**
   * The topic an event goes to: the router's answer, else its destination, else {@value
   * #DEFAULT_TOPIC_PREFIX} + aggregate type.
   *
   * @param event any event
   * @return the topic name (not yet checked for legality)
   */
  public String topicOf(OutboxEvent event) {
    return Routing.route(event, topicRouter, DEFAULT_TOPIC_PREFIX, Function.identity());
  }

  /**
   * Closes an owned producer, letting it deliver what it holds for up to the close timeout, and the
   * Admin client that reads topics' size limits; leaves a borrowed producer open. Idempotent.
   */
  @Override
  public void close() {
    if (gate.close()) {
      sender.close();
      producer.close(closeTimeout);
      log.info("[{}] Kafka transport closed", name);
    }
  }

  /** Names the transport and its settings, without secrets. */
  @Override
  public String toString() {
    return "KafkaTransport[" + name + ", sendTimeout=" + sendTimeout + "]";
  }

  /** Configures a {@link KafkaTransport}; every option is checked where it is set. */
  public static final class Builder {
    private final Map<String, ?> producerConfig;
    private final Producer<String, byte[]> borrowed;
    private String name = DEFAULT_NAME;
    private Function<OutboxEvent, String> topicRouter;
    private Duration sendTimeout = DEFAULT_SEND_TIMEOUT;
    private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;

    private Builder(Map<String, ?> producerConfig, Producer<String, byte[]> borrowed) {
      this.producerConfig = producerConfig;
      this.borrowed = borrowed;
    }

    /**
     * Names the transport in log lines, e.g. after the cluster it writes to, so an application with
     * several transports can tell their logs apart.
     *
     * @param name {@value OutboxConfigurationException#NAME_RULE}; default {@value #DEFAULT_NAME}
     * @return this builder
     */
    public Builder name(String name) {
      this.name = OutboxConfigurationException.checkName(name);
      return this;
    }

    /**
     * Chooses the topic of every event, also of those with a destination (check {@link
     * OutboxEvent#destination()} to keep it). The function may return null to fall back to the
     * event's destination, then to the default rule ({@value #DEFAULT_TOPIC_PREFIX} + aggregate
     * type). It is called on the relay's thread, once per event and attempt; if it throws, the
     * event is retried.
     *
     * @param topicRouter the routing function
     * @return this builder
     */
    public Builder topicRouter(Function<OutboxEvent, String> topicRouter) {
      this.topicRouter = OutboxConfigurationException.requireNonNull(topicRouter, "topicRouter");
      return this;
    }

    /**
     * Deadline of one batch (or single send), from the call until the last acknowledgement. At
     * least the producer's {@code delivery.timeout.ms}; below the relay's lease. Default {@link
     * #DEFAULT_SEND_TIMEOUT}.
     *
     * @param sendTimeout the deadline, positive
     * @return this builder
     */
    public Builder sendTimeout(Duration sendTimeout) {
      this.sendTimeout = positive("sendTimeout", sendTimeout);
      return this;
    }

    /**
     * How long {@link KafkaTransport#close()} lets an owned producer finish; zero drops what it
     * still holds. Default {@link #DEFAULT_CLOSE_TIMEOUT}.
     *
     * @param closeTimeout the bound, zero or positive
     * @return this builder
     */
    public Builder closeTimeout(Duration closeTimeout) {
      if (closeTimeout == null || closeTimeout.isNegative()) {
        throw new OutboxConfigurationException(
            "closeTimeout must be zero or positive, was " + closeTimeout);
      }
      this.closeTimeout = closeTimeout;
      return this;
    }

    /**
     * Builds the transport. An owned producer is created here (it connects lazily, on the first
     * send).
     *
     * @return the transport, to hand to the relay
     * @throws OutboxConfigurationException if the producer config is incomplete or contradicts the
     *     send timeout
     */
    public KafkaTransport build() {
      ProducerHandle handle;
      String settings;
      if (borrowed != null) {
        handle = ProducerHandle.borrowed(name, borrowed);
        settings = "borrowed producer (its settings are its owner's)";
      } else {
        ProducerSettings owned =
            ProducerSettings.of(
                producerConfig,
                DEFAULT_DELIVERY_TIMEOUT,
                DEFAULT_MAX_BLOCK,
                DEFAULT_REQUEST_TIMEOUT);
        if (sendTimeout.compareTo(owned.deliveryTimeout()) < 0) {
          throw new OutboxConfigurationException(
              "sendTimeout ("
                  + sendTimeout
                  + ") is shorter than the producer's delivery.timeout.ms ("
                  + owned.deliveryTimeout().toMillis()
                  + " ms): records still in the producer would be reported as not delivered and"
                  + " sent again; raise sendTimeout or lower delivery.timeout.ms");
        }
        if (!owned.keepsOrderAndDurability()) {
          log.warn(
              "[{}] producer has enable.idempotence=false or acks other than all: a retry inside"
                  + " the producer can reorder an aggregate's events, and a leader failure can"
                  + " lose acknowledged ones",
              name);
        }
        handle = ProducerHandle.owned(name, owned);
        settings =
            "owned producer ("
                + owned.describe()
                + (owned.transactional() ? "; one Kafka transaction per batch" : "")
                + ")";
      }
      KafkaTransport transport = new KafkaTransport(this, handle);
      log.info(
          "[{}] Kafka transport: {}, sendTimeout={}, closeTimeout={}, topics: destination, else {},"
              + " else '{}' + aggregate type",
          name,
          settings,
          sendTimeout,
          closeTimeout,
          topicRouter == null ? "(no router)" : "the topic router",
          DEFAULT_TOPIC_PREFIX);
      return transport;
    }

    private static Duration positive(String option, Duration value) {
      if (value == null || value.isNegative() || value.isZero()) {
        throw new OutboxConfigurationException(option + " must be positive, was " + value);
      }
      return value;
    }
  }
}
