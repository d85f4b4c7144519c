package dev.outboxkit.jdbc;

import dev.outboxkit.jdbc.internal.HoldNote;
import dev.outboxkit.jdbc.internal.StoredRows;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;

/**
 * One row of the outbox table as an operator sees it: the event's fields and where the relay is
 * with it. Read by {@link OutboxAdmin#find} and {@link OutboxAdmin#liveEventsOf}; values are shown
 * as stored, without validation, so a row written by another tool can still be looked at.
 * Immutable.
 */
public final class StoredEvent {
  private final StoredRows.Row row;

  StoredEvent(StoredRows.Row row) {
    this.row = row;
  }

  /** {@return the row's position in append order; claims and ordered delivery follow it} */
  public long seq() {
    return row.seq;
  }

  /** {@return the event's id, the same on every delivery} */
  public UUID id() {
    return row.id;
  }

  /** {@return the aggregate's type} */
  public String aggregateType() {
    return row.aggregateType;
  }

  /** {@return the aggregate's id} */
  public String aggregateId() {
    return row.aggregateId;
  }

  /** {@return the event's type} */
  public String eventType() {
    return row.eventType;
  }

  /** {@return the payload's schema version} */
  public int schemaVersion() {
    return row.schemaVersion;
  }

  /** {@return the destination, or empty for the transport's default} */
  public Optional<String> destination() {
    return Optional.ofNullable(row.destination);
  }

  /** {@return the tenant, if the event has one} */
  public Optional<String> tenant() {
    return Optional.ofNullable(row.tenant);
  }

  /** {@return the payload's content type} */
  public String contentType() {
    return row.contentType;
  }

  /** {@return when the event occurred, by the appending host's clock} */
  public Instant occurredAt() {
    return row.occurredAt;
  }

  /** {@return the earliest time a relay may claim it (later after a retry or a hold)} */
  public Instant availableAt() {
    return row.availableAt;
  }

  /** {@return when it expires unsent, if it does} */
  public Optional<Instant> expiresAt() {
    return Optional.ofNullable(row.expiresAt);
  }

  /** {@return where the event is} A status this version does not know is read as it is stored. */
  public String status() {
    return row.status;
  }

  /** {@return the failed sends charged to the event} */
  public int attempts() {
    return row.attempts;
  }

  /** {@return the sends that may have arrived although unconfirmed} */
  public int uncertainSends() {
    return row.uncertainSends;
  }

  /** {@return the leases that ran out while a relay held the event} */
  public int leaseLosses() {
    return row.leaseLosses;
  }

  /** {@return the last failure or hold, as the relay recorded it} */
  public Optional<String> lastError() {
    return Optional.ofNullable(row.lastError);
  }

  /**
   * {@return when a relay first met this event's destination down, if the event is held back for
   * that (its {@link #lastError()} is the relay's hold note)}
   */
  public Optional<Instant> destinationDownSince() {
    return Optional.ofNullable(HoldNote.since(row.lastError));
  }

  /** {@return when it reached a final state (PUBLISHED, DEAD, EXPIRED, ...), by the database} */
  public Optional<Instant> finishedAt() {
    return Optional.ofNullable(row.finishedAt);
  }

  /** {@return the relay holding it while IN_FLIGHT} */
  public Optional<String> leaseOwner() {
    return Optional.ofNullable(row.leaseOwner);
  }

  /** {@return until when that relay holds it} */
  public Optional<Instant> leaseUntil() {
    return Optional.ofNullable(row.leaseUntil);
  }

  /** {@return the aggregate's version after this event, if the application gave one} */
  public OptionalLong aggregateVersion() {
    return row.aggregateVersion == null
        ? OptionalLong.empty()
        : OptionalLong.of(row.aggregateVersion);
  }

  /** {@return the supersede key, if the event has one} */
  public Optional<String> supersedeKey() {
    return Optional.ofNullable(row.supersedeKey);
  }

  /** {@return the claim priority, -9 to 9} */
  public int priority() {
    return row.priority;
  }

  /**
   * {@return the headers, if this read includes them and they are the JSON object OutboxKit writes}
   * Empty for a read without headers or for unreadable text; {@link #headersText()} has the text as
   * stored.
   */
  public Map<String, String> headers() {
    return row.headers == null ? Collections.emptyMap() : Collections.unmodifiableMap(row.headers);
  }

  /** {@return the headers column as stored, if this read includes it and it is not empty} */
  public Optional<String> headersText() {
    return Optional.ofNullable(row.headersText);
  }

  /**
   * {@return a copy of the payload, if this read includes it} Only {@link OutboxAdmin#find} reads
   * payloads.
   */
  public Optional<byte[]> payload() {
    return row.payload == null ? Optional.empty() : Optional.of(row.payload.clone());
  }

  /** {@return the payload's size in bytes, if this read includes it} */
  public OptionalLong payloadSize() {
    return row.payload == null ? OptionalLong.empty() : OptionalLong.of(row.payload.length);
  }

  @Override
  public String toString() {
    return "StoredEvent[seq=" + row.seq + ", id=" + row.id + ", status=" + row.status + "]";
  }
}
