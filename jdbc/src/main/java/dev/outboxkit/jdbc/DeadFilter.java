package dev.outboxkit.jdbc;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Which DEAD events {@link OutboxAdmin#listDead(DeadFilter, long, int)} reads: every one by
 * default, or those of one destination, event type or aggregate that died within a time range.
 * Immutable.
 *
 * <pre>{@code
 * DeadFilter crm = DeadFilter.builder().destination("crm").diedFrom(tenOClock).build();
 * }</pre>
 */
public final class DeadFilter {
  private static final DeadFilter ALL = new Builder().build();

  private final String destination;
  private final String eventType;
  private final String aggregateType;
  private final String aggregateId;
  private final Instant diedFrom;
  private final Instant diedBefore;

  private DeadFilter(Builder b) {
    this.destination = b.destination;
    this.eventType = b.eventType;
    this.aggregateType = b.aggregateType;
    this.aggregateId = b.aggregateId;
    this.diedFrom = b.diedFrom;
    this.diedBefore = b.diedBefore;
  }

  /** {@return a filter every DEAD event matches} */
  public static DeadFilter all() {
    return ALL;
  }

  /** {@return a builder for a narrower filter} */
  public static Builder builder() {
    return new Builder();
  }

  /** {@return the destination to match, if one is set} */
  public Optional<String> destination() {
    return Optional.ofNullable(destination);
  }

  /** {@return the event type to match, if one is set} */
  public Optional<String> eventType() {
    return Optional.ofNullable(eventType);
  }

  /** {@return the aggregate type to match, if one is set} */
  public Optional<String> aggregateType() {
    return Optional.ofNullable(aggregateType);
  }

  /** {@return the aggregate id to match, if one is set} */
  public Optional<String> aggregateId() {
    return Optional.ofNullable(aggregateId);
  }

  /** {@return the earliest time of death to match (inclusive), if one is set} */
  public Optional<Instant> diedFrom() {
    return Optional.ofNullable(diedFrom);
  }

  /** {@return the time of death to match events before (exclusive), if one is set} */
  public Optional<Instant> diedBefore() {
    return Optional.ofNullable(diedBefore);
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof DeadFilter)) {
      return false;
    }
    DeadFilter f = (DeadFilter) o;
    return Objects.equals(destination, f.destination)
        && Objects.equals(eventType, f.eventType)
        && Objects.equals(aggregateType, f.aggregateType)
        && Objects.equals(aggregateId, f.aggregateId)
        && Objects.equals(diedFrom, f.diedFrom)
        && Objects.equals(diedBefore, f.diedBefore);
  }

  @Override
  public int hashCode() {
    return Objects.hash(destination, eventType, aggregateType, aggregateId, diedFrom, diedBefore);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("DeadFilter[");
    append(s, "destination", destination);
    append(s, "eventType", eventType);
    append(s, "aggregateType", aggregateType);
    append(s, "aggregateId", aggregateId);
    append(s, "diedFrom", diedFrom);
    append(s, "diedBefore", diedBefore);
    return s.append(']').toString();
  }

  private static void append(StringBuilder s, String name, Object value) {
    if (value != null) {
      s.append(s.charAt(s.length() - 1) == '[' ? "" : ", ").append(name).append('=').append(value);
    }
  }

  /** Sets what to match; each criterion left unset matches every value. */
  public static final class Builder {
    private String destination;
    private String eventType;
    private String aggregateType;
    private String aggregateId;
    private Instant diedFrom;
    private Instant diedBefore;

    private Builder() {}

    /**
     * @param destination events sent to this destination
     * @return this builder
     */
    public Builder destination(String destination) {
      this.destination = destination;
      return this;
    }

    /**
     * @param eventType events of this type
     * @return this builder
     */
    public Builder eventType(String eventType) {
      this.eventType = eventType;
      return this;
    }

    /**
     * @param aggregateType events of aggregates of this type
     * @return this builder
     */
    public Builder aggregateType(String aggregateType) {
      this.aggregateType = aggregateType;
      return this;
    }

    /**
     * @param aggregateId events of aggregates with this id
     * @return this builder
     */
    public Builder aggregateId(String aggregateId) {
      this.aggregateId = aggregateId;
      return this;
    }

    /**
     * @param from events that died at or after this time
     * @return this builder
     */
    public Builder diedFrom(Instant from) {
      this.diedFrom = from;
      return this;
    }

    /**
     * @param before events that died before this time
     * @return this builder
     */
    public Builder diedBefore(Instant before) {
      this.diedBefore = before;
      return this;
    }

    /** {@return the filter} */
    public DeadFilter build() {
      return new DeadFilter(this);
    }
  }
}
