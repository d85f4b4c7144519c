package dev.outboxkit.jdbc.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.CancelOutcome;
import dev.outboxkit.jdbc.dialect.SqlDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * {@code OutboxWriter}'s way into the SQL layer: runs {@link Statements#INSERT} on the caller's
 * connection, one event or a JDBC batch, with the caller's context headers merged in, then lets
 * events with a supersede key withdraw the earlier ones ({@link Withdrawals#supersede}); cancels
 * events in the caller's transaction. A missing table or a wrong dialect is said as such. Public
 * only because the writer lives in the parent package.
 */
public final class Appends {
  /** Builds the caller's value from what cancelling an aggregate's events did. */
  @FunctionalInterface
  public interface CancelTally<T> {
    /** What the cancel did: events withdrawn, and events a relay held and were left alone. */
    T of(int cancelled, int inFlight);
  }

  private final TableName table;
  // The dialect the user named, or null: a failed insert is checked against the database's own.
  private final SqlDialect named;
  private final SqlResolver resolver;
  private final ContextHeaders contextHeaders;

  /**
   * @param named the dialect the user named, or null to detect it per connection
   * @param contextHeaders the caller's context headers, or null for none
   */
  public Appends(SqlDialect named, TableName table, Supplier<Map<String, String>> contextHeaders) {
    this.table = table;
    this.named = named;
    this.resolver = SqlResolver.perDatabase(named, table);
    this.contextHeaders = contextHeaders == null ? null : new ContextHeaders(contextHeaders);
  }

  /**
   * Inserts events in one statement execution (a batch when more than one).
   *
   * @param events at least one, checked by the caller
   */
  public void insert(Connection c, List<OutboxEvent> events) throws SQLException {
    OutboxSql s = resolver.sql(c);
    Map<String, String> context = contextHeaders == null ? Map.of() : contextHeaders.current();
    try (Query q = Query.prepare(c, s, Statements.INSERT)) {
      if (events.size() == 1) {
        bind(q, events.get(0), context).executeUpdate();
      } else {
        for (OutboxEvent e : events) {
          bind(q, e, context).addBatch();
        }
        q.executeBatch();
      }
      Withdrawals.supersede(c, s, events);
    } catch (SQLException e) {
      throw TableCheck.explain(e, c, named, table);
    }
  }

  /** Cancels one waiting event in the caller's transaction. */
  public CancelOutcome cancel(Connection c, UUID eventId, String reason) throws SQLException {
    try {
      return Withdrawals.cancel(c, resolver.sql(c), eventId, reason);
    } catch (SQLException e) {
      throw TableCheck.explain(e, c, named, table);
    }
  }

  /** Cancels an aggregate's waiting events in the caller's transaction. */
  public <T> T cancelAggregate(
      Connection c, String aggregateType, String aggregateId, String reason, CancelTally<T> tally)
      throws SQLException {
    try {
      return Withdrawals.cancelAggregate(
          c, resolver.sql(c), aggregateType, aggregateId, reason, tally);
    } catch (SQLException e) {
      throw TableCheck.explain(e, c, named, table);
    }
  }

  private static Query bind(Query q, OutboxEvent e, Map<String, String> context)
      throws SQLException {
    String headers = HeadersCodec.encode(ContextHeaders.merge(e.headers(), context));
    return EventRows.bind(q, e, headers).setLong("delay", Micros.of(e.delay()));
  }
}
