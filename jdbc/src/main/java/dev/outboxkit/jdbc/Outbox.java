package dev.outboxkit.jdbc;

import dev.outboxkit.OutboxEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * Zero-setup entry point: append events to {@code outbox_event} on the caller's connection, in the
 * caller's transaction, with the dialect detected from the connection.
 *
 * <pre>{@code
 * connection.setAutoCommit(false);
 * insertOrder(connection, order);
 * Outbox.append(connection, OutboxEvent.builder("Order", order.id(), "OrderPlaced")
 *     .payload(orderJson).build());
 * connection.commit();
 * }</pre>
 *
 * For another table, an explicit dialect or other limits, build an {@link OutboxWriter} with {@link
 * #writer()}.
 */
public final class Outbox {
  private static final OutboxWriter DEFAULT = OutboxWriter.builder().build();

  private Outbox() {}

  /**
   * Appends one event; see {@link OutboxWriter#append}.
   *
   * @param connection the caller's connection, auto-commit off; never committed or closed here
   * @param event the event
   * @throws IllegalStateException if the connection is in auto-commit mode
   * @throws SQLException if the insert fails
   */
  public static void append(Connection connection, OutboxEvent event) throws SQLException {
    DEFAULT.append(connection, event);
  }

  /**
   * Appends events in one JDBC batch; see {@link OutboxWriter#appendAll}.
   *
   * @param connection the caller's connection, auto-commit off; never committed or closed here
   * @param events the events, in the order they should be published
   * @throws IllegalStateException if the connection is in auto-commit mode
   * @throws SQLException if the batch fails
   */
  public static void appendAll(Connection connection, List<OutboxEvent> events)
      throws SQLException {
    DEFAULT.appendAll(connection, events);
  }

  /**
   * Withdraws a waiting event in the caller's transaction; see {@link
   * OutboxWriter#cancel(Connection, UUID)}.
   *
   * @param connection the caller's connection, auto-commit off; never committed or closed here
   * @param eventId the event's id
   * @return what was found; {@link CancelOutcome#CANCELLED} only if it can no longer be sent
   * @throws IllegalStateException if the connection is in auto-commit mode
   * @throws SQLException if the update fails
   */
  public static CancelOutcome cancel(Connection connection, UUID eventId) throws SQLException {
    return DEFAULT.cancel(connection, eventId);
  }

  /**
   * Withdraws an aggregate's waiting events in the caller's transaction; see {@link
   * OutboxWriter#cancelAggregate}.
   *
   * @param connection the caller's connection, auto-commit off; never committed or closed here
   * @param aggregateType the aggregate's type
   * @param aggregateId the aggregate's id
   * @return how many were cancelled, and how many a relay held
   * @throws IllegalStateException if the connection is in auto-commit mode
   * @throws SQLException if the update fails
   */
  public static AggregateCancellation cancelAggregate(
      Connection connection, String aggregateType, String aggregateId) throws SQLException {
    return DEFAULT.cancelAggregate(connection, aggregateType, aggregateId);
  }

  /** {@return a builder for a writer on another table, dialect or payload limit} */
  public static OutboxWriter.Builder writer() {
    return OutboxWriter.builder();
  }
}
