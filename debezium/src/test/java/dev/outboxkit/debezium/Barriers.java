package dev.outboxkit.debezium;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import java.sql.Connection;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * Marker events as barriers: once an engine has published a marker, it has published every event
 * committed before it (a connector publishes in commit order).
 */
final class Barriers {
  private Barriers() {}

  /** Appends one event in a transaction of its own. */
  static void append(DataSource dataSource, OutboxEvent event) throws Exception {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      Outbox.append(c, event);
      c.commit();
    }
  }

  /** Appends a marker and waits until every engine published it. */
  static void barrier(DataSource dataSource, CdcEngine... engines) throws Exception {
    OutboxEvent marker = marker();
    append(dataSource, marker);
    for (CdcEngine engine : engines) {
      engine.awaitEvent(marker.id().toString(), Duration.ofSeconds(60));
    }
  }

  /**
   * Appends markers until one reached every engine: from then on every commit is captured. A
   * connector that shows no readiness on the server (MySQL's binlog reader) may miss the first.
   */
  static void firstBarrier(DataSource dataSource, CdcEngine... engines) throws Exception {
    long giveUp = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      OutboxEvent marker = marker();
      append(dataSource, marker);
      boolean all = true;
      for (CdcEngine engine : engines) {
        all &=
            engine.await(
                r -> marker.id().toString().equals(CdcEngine.eventId(r)), Duration.ofSeconds(2));
      }
      if (all) {
        return;
      }
      assertThat(System.nanoTime()).as("engines capturing within 90 s").isLessThan(giveUp);
    }
  }

  private static OutboxEvent marker() {
    return OutboxEvent.builder("Marker", "m", "Barrier").payload("{}").build();
  }
}
