package dev.outboxkit;

import dev.outboxkit.internal.EventValidation;
import dev.outboxkit.internal.TimeOrderedUuid;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * One event to publish: what happened ({@link #eventType()}) to which aggregate ({@link
 * #aggregateType()}, {@link #aggregateId()}), with an opaque payload and string headers. Immutable
 * and thread-safe.
 *
 * <pre>{@code
 * OutboxEvent e = OutboxEvent.builder("Order", orderId, "OrderPlaced")
 *     .payload("{\"total\": 42}")
 *     .header("correlation-id", cid)
 *     .build();
 * }</pre>
 *
 * <p>The {@link #id()} is fixed when the event is built and travels unchanged with every delivery
 * attempt, so consumers can deduplicate on it. Timestamps are kept at microsecond precision, the
 * finest that every supported database stores.
 */
public final class OutboxEvent {

  /** Content type of a payload given as text: {@value}. */
  public static final String JSON = "application/json";

  /**
   * Longest accepted value of any identifier-like field (types, ids, destination, tenant, content
   * type), in characters (Unicode code points, as the columns count them; an emoji is one):
   * {@value}.
   */
  public static final int MAX_FIELD_LENGTH = EventValidation.MAX_FIELD_LENGTH;

  /**
   * Earliest accepted {@link #occurredAt()} or {@link #expiresAt()}: {@code 1000-01-01T00:00:00Z},
   * the start of the range of MySQL's and MariaDB's {@code DATETIME}, the narrowest column among
   * the supported databases.
   */
  public static final Instant EARLIEST_INSTANT = EventValidation.EARLIEST_INSTANT;

  /**
   * Latest accepted {@link #occurredAt()} or {@link #expiresAt()}: {@code
   * 9999-12-31T23:59:59.999999Z}, the end of the range of MySQL's and MariaDB's {@code DATETIME}.
   */
  public static final Instant LATEST_INSTANT = EventValidation.LATEST_INSTANT;

  /**
   * Longest accepted {@link #delay()}: 36,500 days (about 100 years). The database adds the delay
   * to its own time, and the sum must stay below {@link #LATEST_INSTANT} on every database for as
   * long as this library is in use; within this limit PostgreSQL's interval arithmetic is also
   * exact to the microsecond.
   */
  public static final Duration MAX_DELAY = EventValidation.MAX_DELAY;

  /** Lowest {@link #priority()}: claimed after every other due event. */
  public static final int MIN_PRIORITY = -9;

  /** Highest {@link #priority()}: claimed before every other due event. */
  public static final int MAX_PRIORITY = 9;

  private final UUID id;
  private final String aggregateType;
  private final String aggregateId;
  private final String eventType;
  private final int schemaVersion;
  private final String destination;
  private final String tenant;
  private final byte[] payload;
  private final String contentType;
  private final Map<String, String> headers;
  private final Instant occurredAt;
  private final Duration delay;
  private final Instant expiresAt;
  private final long aggregateVersion;
  private final String supersedeKey;
  private final int priority;

  private OutboxEvent(Builder b) {
    // The default occurredAt is checked before the clock also makes the id.
    this.occurredAt =
        b.occurredAt != null
            ? b.occurredAt
            : EventValidation.instant("occurredAt", b.clock.instant());
    this.id = b.id != null ? b.id : TimeOrderedUuid.next(b.clock);
    this.aggregateType = b.aggregateType;
    this.aggregateId = b.aggregateId;
    this.eventType = b.eventType;
    this.schemaVersion = b.schemaVersion;
    this.destination = b.destination;
    this.tenant = b.tenant;
    this.payload = b.payload;
    this.contentType = b.contentType;
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    this.delay = b.delay;
    this.expiresAt = b.expiresAt;
    this.aggregateVersion = b.aggregateVersion;
    this.supersedeKey = b.supersedeKey;
    this.priority = b.priority;
  }

  /**
   * Starts an event.
   *
   * @param aggregateType the kind of thing that changed, e.g. {@code "Order"}; also the default
   *     routing key of the transports (topic, queue)
   * @param aggregateId which one changed; events of one aggregate are published in append order
   * @param eventType what happened, e.g. {@code "OrderPlaced"}
   * @return a builder; call a {@code payload} method and {@link Builder#build()}
   */
  public static Builder builder(String aggregateType, String aggregateId, String eventType) {
    return new Builder(aggregateType, aggregateId, eventType);
  }

  /**
   * {@return the event id: a time-ordered UUID (version 7) unless one was given} Stable across
   * retries, so consumers deduplicate on it.
   */
  public UUID id() {
    return id;
  }

  /** {@return the kind of aggregate that changed, e.g. {@code "Order"}} */
  public String aggregateType() {
    return aggregateType;
  }

  /** {@return the id of the aggregate that changed; the ordering and partitioning key} */
  public String aggregateId() {
    return aggregateId;
  }

  /** {@return what happened, e.g. {@code "OrderPlaced"}} */
  public String eventType() {
    return eventType;
  }

  /** {@return the version of the payload's schema, so consumers can evolve; 1 unless set} */
  public int schemaVersion() {
    return schemaVersion;
  }

  /**
   * {@return the explicit destination (topic, queue, endpoint name), or empty to let the transport
   * route}
   */
  public Optional<String> destination() {
    return Optional.ofNullable(destination);
  }

  /** {@return the tenant of a multi-tenant application, or empty} Transports may route on it. */
  public Optional<String> tenant() {
    return Optional.ofNullable(tenant);
  }

  /** {@return the payload bytes (a copy: the event stays immutable)} */
  public byte[] payload() {
    return payload.clone();
  }

  /** {@return the size of the payload in bytes, without copying it} */
  public int payloadSize() {
    return payload.length;
  }

  /** {@return the content type of the payload; {@value #JSON} for a payload given as text} */
  public String contentType() {
    return contentType;
  }

  /**
   * {@return the free-form string headers, in insertion order} Delivered as broker headers.
   * Unmodifiable.
   */
  public Map<String, String> headers() {
    return headers;
  }

  /**
   * {@return when the event happened, at microsecond precision} Microseconds because that is what
   * every supported database stores, so a read-back event equals the appended one.
   */
  public Instant occurredAt() {
    return occurredAt;
  }

  /**
   * {@return how long after the appending transaction's database time the event becomes
   * deliverable; zero for at once} An instruction to the writer, not stored as such (the table
   * keeps the resulting {@code available_at}), so it is not part of {@link #equals(Object)}.
   */
  public Duration delay() {
    return delay;
  }

  /**
   * {@return the instant after which the event is not worth sending any more (it becomes EXPIRED),
   * or empty}
   */
  public Optional<Instant> expiresAt() {
    return Optional.ofNullable(expiresAt);
  }

  /**
   * {@return the aggregate's version after this event, or empty} Delivered with the event (a Kafka
   * header, a JMS property, a webhook header), so a consumer can apply only a later version than
   * the last it applied and notice a missing one ({@code Inbox.accept}).
   */
  public OptionalLong aggregateVersion() {
    return aggregateVersion == 0 ? OptionalLong.empty() : OptionalLong.of(aggregateVersion);
  }

  /**
   * {@return the supersede key, or empty} Appending an event with a key withdraws the earlier
   * events of its aggregate with the same key that were not sent yet (they become SUPERSEDED), so
   * only the newest state is delivered. Not delivered to consumers.
   */
  public Optional<String> supersedeKey() {
    return Optional.ofNullable(supersedeKey);
  }

  /**
   * {@return the priority, from {@link #MIN_PRIORITY} to {@link #MAX_PRIORITY}; 0 unless set} A
   * relay claims due events of higher priority first; in ordered mode it chooses among the
   * aggregates' first waiting events, so an event never overtakes an earlier one of its aggregate.
   * Not delivered to consumers.
   */
  public int priority() {
    return priority;
  }

  /** Equal when every stored field is equal (payloads compared by content); ignores delay. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof OutboxEvent)) {
      return false;
    }
    OutboxEvent e = (OutboxEvent) o;
    return id.equals(e.id)
        && aggregateType.equals(e.aggregateType)
        && aggregateId.equals(e.aggregateId)
        && eventType.equals(e.eventType)
        && schemaVersion == e.schemaVersion
        && Objects.equals(destination, e.destination)
        && Objects.equals(tenant, e.tenant)
        && Arrays.equals(payload, e.payload)
        && contentType.equals(e.contentType)
        && headers.equals(e.headers)
        && occurredAt.equals(e.occurredAt)
        && Objects.equals(expiresAt, e.expiresAt)
        && aggregateVersion == e.aggregateVersion
        && Objects.equals(supersedeKey, e.supersedeKey)
        && priority == e.priority;
  }

  @Override
  public int hashCode() {
    return id.hashCode();
  }

  /** Identifies the event for logs; never includes the payload or header values. */
  @Override
  public String toString() {
    return "OutboxEvent[id="
        + id
        + ", aggregate="
        + aggregateType
        + "/"
        + aggregateId
        + ", type="
        + eventType
        + ", payloadBytes="
        + payload.length
        + "]";
  }

  /** Builds an {@link OutboxEvent}; every setter validates at once and names what to fix. */
  public static final class Builder {
    private final String aggregateType;
    private final String aggregateId;
    private final String eventType;
    private UUID id;
    private int schemaVersion = 1;
    private String destination;
    private String tenant;
    private byte[] payload;
    private String contentType;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private Clock clock = Clock.systemUTC();
    private Instant occurredAt;
    private Duration delay = Duration.ZERO;
    private Instant expiresAt;
    private long aggregateVersion;
    private String supersedeKey;
    private int priority;

    private Builder(String aggregateType, String aggregateId, String eventType) {
      this.aggregateType = EventValidation.name("aggregateType", aggregateType);
      this.aggregateId = EventValidation.name("aggregateId", aggregateId);
      this.eventType = EventValidation.name("eventType", eventType);
    }

    /**
     * Uses this id instead of a generated one, e.g. to make appends idempotent: appending the same
     * id twice fails on the table's unique key instead of publishing twice.
     *
     * @param id the event id, not null
     * @return this builder
     */
    public Builder id(UUID id) {
      this.id = EventValidation.required("id", id);
      return this;
    }

    /**
     * Sets a text payload, stored as UTF-8 with content type {@value OutboxEvent#JSON}.
     *
     * @param json the payload text; the library does not parse it
     * @return this builder
     */
    public Builder payload(String json) {
      EventValidation.required("payload", json);
      return payload(json.getBytes(StandardCharsets.UTF_8), JSON);
    }

    /**
     * Sets a binary payload.
     *
     * @param bytes the payload, copied; may be empty but not null
     * @param contentType its media type, e.g. {@code "application/avro"} or {@code "text/plain;
     *     charset=utf-8"}: printable ASCII, as an HTTP header carries it
     * @return this builder
     * @throws InvalidEventException if the content type holds a line break, another control
     *     character or a character outside ASCII
     */
    public Builder payload(byte[] bytes, String contentType) {
      this.payload = EventValidation.required("payload", bytes).clone();
      this.contentType = EventValidation.contentType(contentType);
      return this;
    }

    /**
     * Adds a header, delivered as a broker header (Kafka header, JMS property, HTTP header).
     *
     * @param name an HTTP token: letters, digits and {@code !#$%&'*+-.^_`|~}
     * @param value any text without line breaks, NUL or unpaired surrogates
     * @return this builder
     */
    public Builder header(String name, String value) {
      headers.put(EventValidation.headerName(name), EventValidation.headerValue(name, value));
      return this;
    }

    /**
     * Adds every entry as by {@link #header(String, String)}.
     *
     * @param headers the headers to add, in the map's iteration order
     * @return this builder
     */
    public Builder headers(Map<String, String> headers) {
      EventValidation.required("headers", headers).forEach(this::header);
      return this;
    }

    /**
     * Routes the event to this destination (topic, queue, endpoint name), overriding the
     * transport's routing rule for this event only.
     *
     * @param destination the destination name
     * @return this builder
     */
    public Builder destination(String destination) {
      this.destination = EventValidation.name("destination", destination);
      return this;
    }

    /**
     * Tags the event with a tenant, for routing in multi-tenant applications.
     *
     * @param tenant the tenant name
     * @return this builder
     */
    public Builder tenant(String tenant) {
      this.tenant = EventValidation.name("tenant", tenant);
      return this;
    }

    /**
     * Sets the payload schema version, delivered with the event so consumers can read old and new
     * payloads side by side.
     *
     * @param schemaVersion the version, at least 1
     * @return this builder
     */
    public Builder schemaVersion(int schemaVersion) {
      if (schemaVersion < 1) {
        throw new InvalidEventException(
            "schemaVersion", "schemaVersion must be 1 or more, was " + schemaVersion);
      }
      this.schemaVersion = schemaVersion;
      return this;
    }

    /**
     * Sets when the event happened, e.g. when the business fact predates the append.
     *
     * @param occurredAt the instant, from {@link OutboxEvent#EARLIEST_INSTANT} to {@link
     *     OutboxEvent#LATEST_INSTANT}; defaults to the clock's now
     * @return this builder
     * @throws InvalidEventException if it lies outside that range
     */
    public Builder occurredAt(Instant occurredAt) {
      this.occurredAt = EventValidation.instant("occurredAt", occurredAt);
      return this;
    }

    /**
     * Sets the clock for the default {@link #occurredAt} and for the generated id's time part, so
     * tests can fix both.
     *
     * @param clock the clock; defaults to the UTC system clock
     * @return this builder
     */
    public Builder clock(Clock clock) {
      this.clock = EventValidation.required("clock", clock);
      return this;
    }

    /**
     * Holds the event back for this long after the appending transaction's database time, e.g. for
     * a reminder; zero (the default) delivers at once.
     *
     * @param delay the delay, from zero to {@link OutboxEvent#MAX_DELAY}
     * @return this builder
     * @throws InvalidEventException if it is negative or longer than {@link OutboxEvent#MAX_DELAY}
     */
    public Builder delay(Duration delay) {
      this.delay = EventValidation.delay(delay);
      return this;
    }

    /**
     * Gives up on the event after this instant: it becomes EXPIRED instead of being sent, for
     * events that are worthless late (a one-time code, a price quote).
     *
     * @param expiresAt the instant, from {@link OutboxEvent#EARLIEST_INSTANT} to {@link
     *     OutboxEvent#LATEST_INSTANT}
     * @return this builder
     * @throws InvalidEventException if it lies outside that range
     */
    public Builder expiresAt(Instant expiresAt) {
      this.expiresAt = EventValidation.instant("expiresAt", expiresAt);
      return this;
    }

    /**
     * Sets the aggregate's version after this event (1 for its first event, then one more per
     * event), delivered with the event so consumers can tell a stale or a missing version apart
     * from the next one ({@code Inbox.accept}). Events of one aggregate appended together must
     * carry increasing versions.
     *
     * @param version the version, at least 1
     * @return this builder
     * @throws InvalidEventException if it is below 1
     */
    public Builder aggregateVersion(long version) {
      if (version < 1) {
        throw new InvalidEventException(
            "aggregateVersion",
            "aggregateVersion must be 1 or more, was "
                + version
                + ": number an aggregate's events from 1");
      }
      this.aggregateVersion = version;
      return this;
    }

    /**
     * Lets this event withdraw earlier ones that only it makes stale: when it is appended, the
     * events of the same aggregate with the same key that are still waiting (PENDING, or DEAD)
     * become SUPERSEDED in the same transaction and are never sent; one a relay already claimed is
     * sent anyway. For example {@code "profile"} on every profile update of a customer, so that
     * after an outage only the latest is delivered.
     *
     * @param key the key: 1 to {@link OutboxEvent#MAX_FIELD_LENGTH} characters, not blank
     * @return this builder
     * @throws InvalidEventException if the key is null, blank, too long or holds a NUL or an
     *     unpaired surrogate
     */
    public Builder supersedeKey(String key) {
      this.supersedeKey = EventValidation.name("supersedeKey", key);
      return this;
    }

    /**
     * Sets the priority: a relay claims due events of higher priority first, for example a
     * password-reset mail (5) before a burst of audit events (-5) appended just before it. Events
     * of equal priority are claimed in append order; in ordered mode an event still waits for the
     * earlier events of its aggregate, whatever their priority.
     *
     * @param priority from {@link OutboxEvent#MIN_PRIORITY} (-9) to {@link
     *     OutboxEvent#MAX_PRIORITY} (9); 0 unless set
     * @return this builder
     * @throws InvalidEventException if it lies outside that range
     */
    public Builder priority(int priority) {
      if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
        throw new InvalidEventException(
            "priority",
            "priority must be from "
                + MIN_PRIORITY
                + " to "
                + MAX_PRIORITY
                + ", was "
                + priority
                + ": use a higher number for events to send sooner, 0 for the usual ones");
      }
      this.priority = priority;
      return this;
    }

    /**
     * Builds the event.
     *
     * @return the immutable event
     * @throws InvalidEventException if no payload was set, or the clock's now (the default {@link
     *     #occurredAt}) lies outside {@link OutboxEvent#EARLIEST_INSTANT} to {@link
     *     OutboxEvent#LATEST_INSTANT}
     */
    public OutboxEvent build() {
      if (payload == null) {
        throw new InvalidEventException(
            "payload",
            "payload is required: call payload(json) or payload(bytes, contentType)"
                + " (an empty byte array is allowed)");
      }
      return new OutboxEvent(this);
    }
  }
}
