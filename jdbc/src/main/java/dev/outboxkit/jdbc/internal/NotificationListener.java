package dev.outboxkit.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on a PostgreSQL notification channel and wakes the relay when events commit. Holds one
 * connection of its own for as long as it runs (LISTEN is per session); that connection never takes
 * part in a transaction. Reconnects with backoff when the connection breaks. This is the only class
 * that touches the PostgreSQL driver's API, so it loads only when the option is on.
 */
final class NotificationListener implements Runnable {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay");
  private static final int WAIT_MILLIS = 500;

  private final DataSource ds;
  private final String channel;
  private final String relay;
  private final Runnable wakeUp;
  private volatile boolean running = true;

  /**
   * @param channel a validated identifier (the table's simple name)
   * @param wakeUp called once per batch of notifications received
   */
  public NotificationListener(DataSource ds, String channel, String relay, Runnable wakeUp) {
    this.ds = ds;
    this.channel = channel;
    this.relay = relay;
    this.wakeUp = wakeUp;
  }

  /** Stops listening within about half a second. */
  public void stop() {
    running = false;
  }

  @Override
  public void run() {
    Duration pause = Duration.ofMillis(200);
    while (running) {
      try (Connection c = ds.getConnection()) {
        if (!c.isWrapperFor(PGConnection.class)) {
          log.error(
              "[{}] listenForNotifications needs PostgreSQL's driver and server; this data source"
                  + " gives {} connections, so the relay relies on polling alone",
              relay,
              c.getMetaData().getDatabaseProductName());
          return;
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        if (!c.getAutoCommit()) {
          c.setAutoCommit(true);
        }
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + channel);
        }
        log.info("[{}] listening for notifications on channel {}", relay, channel);
        pause = Duration.ofMillis(200);
        while (running) {
          PGNotification[] received = pg.getNotifications(WAIT_MILLIS);
          if (received != null && received.length > 0) {
            wakeUp.run();
          }
        }
      } catch (SQLException e) {
        if (!running) {
          return;
        }
        log.warn(
            "[{}] notification listener lost its connection, retrying in {} ms (polling goes on): {}",
            relay,
            pause.toMillis(),
            e.getMessage());
        try {
          Thread.sleep(pause.toMillis());
        } catch (InterruptedException ie) {
          return;
        }
        pause =
            pause.multipliedBy(2).compareTo(Duration.ofSeconds(30)) > 0
                ? Duration.ofSeconds(30)
                : pause.multipliedBy(2);
      }
    }
  }
}
