package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.internal.EngineAccess;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The optional LISTEN/NOTIFY wake-up on PostgreSQL. */
class PostgresNotifyTest extends DatabaseTest {

  @Override
  protected Flavor flavor() {
    return Flavor.POSTGRES;
  }

  private void appendOne() throws Exception {
    try (Connection c = transaction()) {
      Outbox.append(c, OutboxEvent.builder("Order", "1", "OrderPlaced").payload("{}").build());
      c.commit();
    }
  }

  @Test
  void the_listener_wakes_the_relay_when_a_commit_notifies_and_not_otherwise() throws Exception {
    CountDownLatch woken = new CountDownLatch(1);
    AutoCloseable listener =
        EngineAccess.listenForNotifications(ds, "outbox_event", woken::countDown);
    try {
      Thread.sleep(500); // let it LISTEN
      appendOne(); // no trigger yet: no notification
      assertThat(woken.await(1, TimeUnit.SECONDS)).as("woken without a trigger").isFalse();

      try (Connection c = ds.getConnection()) {
        OutboxSchema.createNotifyTrigger(c, "outbox_event");
      }
      appendOne();
      assertThat(woken.await(20, TimeUnit.SECONDS))
          .as("woken by the trigger's notification")
          .isTrue();
    } finally {
      listener.close();
      execute("DROP TRIGGER IF EXISTS outbox_event_notify ON outbox_event");
    }
  }

  @Test
  void a_relay_listening_for_notifications_delivers_commits_of_other_sessions() throws Exception {
    try (Connection c = ds.getConnection()) {
      OutboxSchema.createNotifyTrigger(c, "outbox_event");
      OutboxSchema.createNotifyTrigger(c, "outbox_event"); // idempotent
    }
    RecordingTransport transport = new RecordingTransport();
    try (OutboxRelay relay =
        OutboxRelay.builder(ds, transport)
            .name("notified")
            .pollInterval(Duration.ofMinutes(10)) // polling alone would wait minutes
            .listenForNotifications(true)
            .build()) {
      relay.start();
      Thread.sleep(1000); // idle: the first empty polls are behind it, the listener is up
      appendOne();
      assertThat(transport.awaitDelivered(1, Duration.ofSeconds(20))).isTrue();
    } finally {
      execute("DROP TRIGGER outbox_event_notify ON outbox_event");
    }
  }

  @Test
  void the_notify_trigger_is_refused_on_other_databases() throws Exception {
    try (TestDatabase h2 = TestDatabases.create(Flavor.H2, "notify");
        Connection c = h2.connect()) {
      OutboxSchema.create(c);
      assertThatThrownBy(() -> OutboxSchema.createNotifyTrigger(c, "outbox_event"))
          .isInstanceOf(OutboxConfigurationException.class)
          .hasMessageContaining("PostgreSQL");
    }
  }
}
