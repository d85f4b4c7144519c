package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.Transport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;

/**
 * The two events of the transports' trace context tests, shared through this module's test jar: one
 * traced by the writer's context hook, one by its caller, who sets a {@code traceparent} of its own
 * and so keeps it (the hook's {@code tracestate} still joins it).
 */
public final class TracedEvents {
  /** The context hook's W3C {@code traceparent}. */
  public static final String TRACEPARENT =
      "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  /** The context hook's W3C {@code tracestate}. */
  public static final String TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";

  /** The {@code traceparent} the caller sets on the second event. */
  public static final String OWN_TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00";

  private TracedEvents() {}

  /**
   * Appends, in one transaction on a fresh H2 database, {@code FromHook} of aggregate {@code a-1}
   * (traced by the hook) and then {@code FromCaller} of {@code a-2} (with {@link
   * #OWN_TRACEPARENT}), and has a relay send both through the transport in one round.
   *
   * @param type the events' aggregate type
   * @param sendTimeout the relay's send timeout
   */
  public static void appendAndRelay(Transport transport, String type, Duration sendTimeout)
      throws SQLException {
    OutboxWriter writer =
        OutboxWriter.builder()
            .contextHeaders(() -> Map.of("traceparent", TRACEPARENT, "tracestate", TRACESTATE))
            .build();
    try (TestDatabase db = TestDatabases.create(Flavor.H2, "Trace")) {
      try (Connection c = db.connect()) {
        OutboxSchema.create(c);
        c.setAutoCommit(false);
        writer.append(c, OutboxEvent.builder(type, "a-1", "FromHook").payload("{}").build());
        writer.append(
            c,
            OutboxEvent.builder(type, "a-2", "FromCaller")
                .payload("{}")
                .header("traceparent", OWN_TRACEPARENT)
                .build());
        c.commit();
      }
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dataSource(), transport).sendTimeout(sendTimeout).build()) {
        assertThat(relay.runOnce()).isEqualTo(2);
      }
    }
  }
}
