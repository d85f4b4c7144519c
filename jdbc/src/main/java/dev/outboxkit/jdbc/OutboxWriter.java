package dev.outboxkit.jdbc;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.internal.EventValidation;
import dev.outboxkit.jdbc.internal.Appends;
import dev.outboxkit.jdbc.internal.TableName;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Writes events into the outbox table on the caller's connection, inside the caller's transaction.
 * Immutable and thread-safe; build one per table and keep it.
 *
 * <pre>{@code
 * OutboxWriter outbox = Outbox.writer().table("billing.outbox").build();
 * try (Connection c = dataSource.getConnection()) {
 *   c.setAutoCommit(false);
 *   insertInvoice(c, invoice);
 *   outbox.append(c, OutboxEvent.builder("Invoice", invoice.id(), "InvoiceIssued")
 *       .payload(json).build());
 *   c.commit();     // the invoice and its event commit together, or neither does
 * }
 * }</pre>
 *
 * <p>A writer never commits, rolls back, closes, or changes the settings of the connection it is
 * given. Each append is one INSERT (one JDBC batch for {@link #appendAll}); drivers that cache
 * prepared statements (PostgreSQL by default, MySQL with {@code cachePrepStmts=true}) reuse the
 * statement across calls.
 *
 * <p>Trace context: an event carries a W3C {@code traceparent}/{@code tracestate} to its consumers
 * as an ordinary header, set by the caller on the event or taken from the caller's context at
 * append time by {@link Builder#contextHeaders(Supplier)}; transports deliver headers unchanged
 * (Kafka header, JMS property, HTTP header). No tracing library is needed.
 */
public final class OutboxWriter {
  /** Largest payload accepted by default: {@value} bytes (1 MiB). */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;

  /** The reason stored with an event the application cancelled without giving one: {@value}. */
  public static final String DEFAULT_CANCEL_REASON = "cancelled by the application";

  private final TableName table;
  private final boolean allowAutoCommit;
  private final boolean managedTransactions;
  private final int maxPayloadBytes;
  private final Appends appends;

  private OutboxWriter(Builder b) {
    this.table = b.table;
    this.allowAutoCommit = b.allowAutoCommit;
    this.managedTransactions = b.managedTransactions;
    this.maxPayloadBytes = b.maxPayloadBytes;
    this.appends = new Appends(b.dialect, table, b.contextHeaders);
  }

  /** {@return a builder that starts from the defaults of {@link Outbox#append}} */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Appends one event in the connection's current transaction.
   *
   * @param connection the caller's connection, with auto-commit off; used, never closed
   * @param event the event
   * @throws IllegalStateException if the connection is in auto-commit mode and the writer was not
   *     told to allow it: the event would commit on its own, apart from the business writes
   * @throws InvalidEventException if the payload is larger than the limit
   * @throws SQLException if the insert fails (e.g. an event with the same id exists); a missing
   *     table or column, or a named dialect that is not the database's, is said in the message with
   *     what to do; the caller's transaction decides what happens next
   */
  public void append(Connection connection, OutboxEvent event) throws SQLException {
    Objects.requireNonNull(event, "event");
    checkConnection(connection);
    checkPayload(event);
    appends.insert(connection, List.of(event));
  }

  /**
   * Appends events in one JDBC batch, in list order (which becomes their claim order).
   *
   * @param connection the caller's connection, with auto-commit off; used, never closed
   * @param events the events; an empty list writes nothing
   * @throws IllegalStateException as for {@link #append}
   * @throws InvalidEventException if any payload is too large; nothing is written then
   * @throws SQLException if the batch fails
   */
  public void appendAll(Connection connection, List<OutboxEvent> events) throws SQLException {
    Objects.requireNonNull(events, "events");
    checkConnection(connection);
    Map<List<String>, OutboxEvent> lastVersioned = new HashMap<>();
    for (OutboxEvent event : events) {
      checkPayload(Objects.requireNonNull(event, "events contains null"));
      checkVersionGrows(lastVersioned, event);
    }
    if (events.isEmpty()) {
      return;
    }
    appends.insert(connection, events);
  }

  /**
   * Withdraws a waiting event in the connection's transaction, e.g. because the business process
   * that would have sent it was cancelled: a PENDING (or DEAD) event becomes CANCELLED and is never
   * sent; in ordered mode it no longer holds its aggregate back. An event a relay holds right now
   * (IN_FLIGHT) is left alone and may still be delivered. If the transaction rolls back, so does
   * the cancel. The reason stored is {@value #DEFAULT_CANCEL_REASON}.
   *
   * @param connection the caller's connection, with auto-commit off; used, never closed
   * @param eventId the event's id
   * @return what was found: {@link CancelOutcome#CANCELLED} only if the event can no longer be sent
   * @throws IllegalStateException as for {@link #append}
   * @throws SQLException if the update fails
   */
  public CancelOutcome cancel(Connection connection, UUID eventId) throws SQLException {
    return cancel(connection, eventId, DEFAULT_CANCEL_REASON);
  }

  /**
   * As {@link #cancel(Connection, UUID)}, storing a reason of the caller's.
   *
   * @param connection the caller's connection, with auto-commit off; used, never closed
   * @param eventId the event's id
   * @param reason why, kept in the event's {@code last_error} for operators (1 to 1000 characters)
   * @return what was found: {@link CancelOutcome#CANCELLED} only if the event can no longer be sent
   * @throws IllegalArgumentException if the reason is blank or too long
   * @throws IllegalStateException as for {@link #append}
   * @throws SQLException if the update fails
   */
  public CancelOutcome cancel(Connection connection, UUID eventId, String reason)
      throws SQLException {
    Objects.requireNonNull(eventId, "eventId");
    CancelOutcome.checkReason(reason);
    checkConnection(connection);
    return appends.cancel(connection, eventId, reason);
  }

  /**
   * Withdraws every waiting (PENDING or DEAD) event of one aggregate in the connection's
   * transaction, as {@link #cancel(Connection, UUID)} does one: for an aggregate that was deleted,
   * say. Events appended for it later are sent as usual.
   *
   * @param connection the caller's connection, with auto-commit off; used, never closed
   * @param aggregateType the aggregate's type, as on its events
   * @param aggregateId the aggregate's id, as on its events
   * @return how many were cancelled and how many a relay held (and may still deliver)
   * @throws IllegalStateException as for {@link #append}
   * @throws dev.outboxkit.InvalidEventException if the type or id is blank or too long
   * @throws SQLException if the update fails
   */
  public AggregateCancellation cancelAggregate(
      Connection connection, String aggregateType, String aggregateId) throws SQLException {
    EventValidation.name("aggregateType", aggregateType);
    EventValidation.name("aggregateId", aggregateId);
    checkConnection(connection);
    return appends.cancelAggregate(
        connection, aggregateType, aggregateId, DEFAULT_CANCEL_REASON, AggregateCancellation::new);
  }

  /**
   * Events of one aggregate appended together must carry increasing versions: a version that goes
   * backwards is a bug in the caller's numbering, and consumers would read it as stale.
   */
  private static void checkVersionGrows(Map<List<String>, OutboxEvent> last, OutboxEvent event) {
    if (event.aggregateVersion().isEmpty()) {
      return;
    }
    List<String> aggregate = List.of(event.aggregateType(), event.aggregateId());
    OutboxEvent before = last.put(aggregate, event);
    if (before != null
        && before.aggregateVersion().getAsLong() >= event.aggregateVersion().getAsLong()) {
      throw new InvalidEventException(
          "aggregateVersion",
          "aggregateVersion of event "
              + event.id()
              + " is "
              + event.aggregateVersion().getAsLong()
              + ", not above the "
              + before.aggregateVersion().getAsLong()
              + " of event "
              + before.id()
              + " of the same aggregate earlier in the list: give an aggregate's events"
              + " increasing versions in append order");
    }
  }

  /** {@return the table this writer appends to, as written in SQL} */
  public String table() {
    return table.qualified();
  }

  private void checkConnection(Connection connection) throws SQLException {
    Objects.requireNonNull(connection, "connection");
    if (!allowAutoCommit && !managedTransactions && connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the connection is in auto-commit mode, so the event would commit apart from your"
              + " business writes: call connection.setAutoCommit(false) and commit both together."
              + " If a JTA transaction (a container-managed one, say) governs this connection and"
              + " its driver still reports auto-commit, as Narayana's TransactionalDriver does,"
              + " build the writer with managedTransactions(true). If a standalone event is"
              + " intended, build it with allowAutoCommit(true)");
    }
  }

  private void checkPayload(OutboxEvent event) {
    if (event.payloadSize() > maxPayloadBytes) {
      throw new InvalidEventException(
          "payload",
          "payload of event "
              + event.id()
              + " is "
              + event.payloadSize()
              + " bytes; the limit is "
              + maxPayloadBytes
              + " (raise it with OutboxWriter.builder().maxPayloadBytes(n), or store the data"
              + " elsewhere and send a reference)");
    }
  }

  /** Configures an {@link OutboxWriter}. */
  public static final class Builder extends TableOptions<Builder> {
    private boolean allowAutoCommit;
    private boolean managedTransactions;
    private int maxPayloadBytes = DEFAULT_MAX_PAYLOAD_BYTES;
    private Supplier<Map<String, String>> contextHeaders;

    private Builder() {
      super(TableName.DEFAULT);
    }

    /**
     * Allows appends on auto-commit connections, where each event commits on its own. Off by
     * default, because then the event is not atomic with the business writes.
     *
     * @param allow true for standalone events that need no business write beside them
     * @return this builder
     */
    public Builder allowAutoCommit(boolean allow) {
      this.allowAutoCommit = allow;
      return this;
    }

    /**
     * Says that a JTA transaction manager (a Java EE container's, or Narayana, Atomikos and the
     * like) governs the connections' transactions, so the writer skips its auto-commit check: some
     * JTA drivers report auto-commit on an enlisted connection (Narayana's {@code
     * TransactionalDriver} does) although the statement runs in the JTA transaction. Nothing else
     * changes: the writer still never commits, rolls back or reconfigures the connection. Call
     * {@code append} inside an active JTA transaction; outside one, such a connection would commit
     * the event on its own.
     *
     * @param managed true when JTA manages the connections' transactions
     * @return this builder
     */
    public Builder managedTransactions(boolean managed) {
      this.managedTransactions = managed;
      return this;
    }

    /**
     * Refuses payloads larger than this many bytes (default {@value
     * OutboxWriter#DEFAULT_MAX_PAYLOAD_BYTES}). Brokers have limits too (Kafka's default is about 1
     * MB); refusing early keeps undeliverable events out of the table.
     *
     * @param maxPayloadBytes at least 1
     * @return this builder
     */
    public Builder maxPayloadBytes(int maxPayloadBytes) {
      if (maxPayloadBytes < 1) {
        throw new OutboxConfigurationException(
            "maxPayloadBytes must be at least 1, was " + maxPayloadBytes);
      }
      this.maxPayloadBytes = maxPayloadBytes;
      return this;
    }

    /**
     * Adds headers taken from the appending caller's context to every event, typically the W3C
     * trace context of the current span, so consumers continue the producer's trace. The supplier
     * is called once per {@code append}/{@code appendAll}, on the appending thread; an event that
     * already carries a header of the same name (any letter case) keeps its own. A null or empty
     * map adds nothing. The headers obey the rules of {@link OutboxEvent.Builder#header}, and a
     * {@code traceparent} must be a valid W3C value; otherwise the append fails with {@link
     * InvalidEventException} before anything is written.
     *
     * <pre>{@code
     * // OpenTelemetry, without OutboxKit depending on it:
     * .contextHeaders(() -> {
     *   Map<String, String> h = new HashMap<>();
     *   GlobalOpenTelemetry.getPropagators().getTextMapPropagator()
     *       .inject(Context.current(), h, Map::put);
     *   return h;
     * })
     * }</pre>
     *
     * @param supplier the caller's context headers; called once per append
     * @return this builder
     */
    public Builder contextHeaders(Supplier<Map<String, String>> supplier) {
      this.contextHeaders = OutboxConfigurationException.requireNonNull(supplier, "supplier");
      return this;
    }

    /** {@return the immutable, thread-safe writer} */
    public OutboxWriter build() {
      return new OutboxWriter(this);
    }

    @Override
    Builder self() {
      return this;
    }
  }
}
