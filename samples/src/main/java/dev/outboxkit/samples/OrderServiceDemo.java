package dev.outboxkit.samples;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.http.WebhookTransport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.jdbc.RelayListener;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The main demo: an order service on an in-memory H2 database. Each order is inserted and its
 * {@code OrderPlaced} event appended in one plain JDBC transaction; a relay publishes committed
 * events to a broker that hiccups once, to show a retry. One order fails validation and rolls back:
 * neither the order nor its event exists afterwards.
 *
 * <p>Run it with {@code mvn -q -pl samples -am package -DskipTests exec:java}.
 */
public final class OrderServiceDemo {
  private static final int ORDERS = 12;

  private OrderServiceDemo() {}

  /**
   * Runs the demo and exits 0 when every committed order's event was published.
   *
   * @param args ignored
   * @throws Exception if the demo's database or receiver failed
   */
  public static void main(String[] args) throws Exception {
    if (run() != 0) {
      System.exit(1);
    }
  }

  /**
   * Runs the demo.
   *
   * @return 0 when every committed order's event was published and delivered once, else 1
   * @throws Exception if the demo's database or receiver failed
   */
  public static int run() throws Exception {
    System.out.println("OutboxKit demo: orders on H2, events relayed at least once\n");
    JdbcConnectionPool ds =
        JdbcConnectionPool.create(
            "jdbc:h2:mem:orders-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1", "sa", "");
    try (Connection c = ds.getConnection()) {
      c.createStatement()
          .execute(
              "CREATE TABLE orders (id VARCHAR(20) PRIMARY KEY, customer VARCHAR(50), total INT)");
      OutboxSchema.create(c);
    }

    String secret = "whsec_" + Base64.getEncoder().encodeToString(randomKey());
    ShippingService shipping = new ShippingService(secret, "o-3", "o-5");
    WebhookTransport webhooks =
        WebhookTransport.builder(shipping.uri(), secret)
            .allowHttp() // the demo's receiver is plain http on 127.0.0.1
            .allowPrivateAddresses()
            // A batch whose every request fails (say, only the 503) opens the endpoint's breaker;
            // the default 30 s pause suits production, the demo wants to move on quickly.
            .circuitOpenDuration(Duration.ofMillis(300))
            .build();
    List<Duration> lags = new CopyOnWriteArrayList<>();
    RelayListener listener =
        new RelayListener() {
          @Override
          public void published(OutboxEvent event, int attempt, Duration lag) {
            lags.add(lag);
            System.out.printf(
                "[relay]  published %s %s (attempt %d, %d ms after it occurred)%n",
                event.eventType(), event.aggregateId(), attempt, lag.toMillis());
          }

          @Override
          public void retried(OutboxEvent event, int attempt, String reason, Duration delay) {
            System.out.printf(
                "[relay]  %s %s failed (%s); retrying in %d ms%n",
                event.eventType(), event.aggregateId(), reason, delay.toMillis());
          }
        };

    int committed = 0;
    try (OutboxRelay relay =
        OutboxRelay.builder(ds, webhooks)
            .name("demo")
            .pollInterval(Duration.ofMillis(100))
            .retryBackoff(Duration.ofMillis(200), Duration.ofSeconds(1))
            .outageBackoff(Duration.ofMillis(200), Duration.ofSeconds(1))
            .listener(listener)
            .build()) {
      relay.start();
      for (int i = 1; i <= ORDERS; i++) {
        String id = "o-" + i;
        boolean ok = placeOrder(ds, id, "customer-" + (i % 4), i == 7 ? -5 : 10 * i);
        committed += ok ? 1 : 0;
        relay.wakeUp(); // same-JVM hint: publish right after commit instead of at the next poll
        Thread.sleep(50);
      }
      awaitPublished(ds, committed, Duration.ofSeconds(20));
    }

    webhooks.close();
    OutboxAdmin admin = OutboxAdmin.create(ds);
    long published = admin.count(EventStatus.PUBLISHED);
    long shipments = shipping.shipments();
    System.out.printf(
        "%nSummary: %d orders committed, 1 rolled back; %d events published (%d dead);"
            + " %d webhooks received, %d refused signatures, %d duplicates skipped;"
            + " %d shipments; lag p50 %d ms, p99 %d ms%n",
        committed,
        published,
        admin.count(EventStatus.DEAD),
        shipping.received.get(),
        shipping.refusedSignatures.get(),
        shipping.duplicates.get(),
        shipments,
        percentile(lags, 50).toMillis(),
        percentile(lags, 99).toMillis());
    boolean consistent =
        published == committed && orders(ds) == committed && shipments == committed;
    shipping.close();
    ds.dispose();
    return consistent ? 0 : 1;
  }

  /** The business transaction: the order row and its event commit together, or neither does. */
  static boolean placeOrder(DataSource ds, String id, String customer, int total)
      throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders VALUES (?, ?, ?)")) {
        ps.setString(1, id);
        ps.setString(2, customer);
        ps.setInt(3, total);
        ps.executeUpdate();
      }
      Outbox.append(
          c,
          OutboxEvent.builder("Order", id, "OrderPlaced")
              .payload(
                  "{\"order\":\""
                      + id
                      + "\",\"customer\":\""
                      + customer
                      + "\",\"total\":"
                      + total
                      + "}")
              .header("source", "demo")
              .build());
      if (total < 0) {
        c.rollback();
        System.out.printf(
            "[app]    order %s refused (negative total): rolled back, no event%n", id);
        return false;
      }
      c.commit();
      System.out.printf(
          "[app]    order %s placed; OrderPlaced appended in the same transaction%n", id);
      return true;
    }
  }

  private static long orders(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection();
        var rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM orders")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void awaitPublished(DataSource ds, long expected, Duration timeout)
      throws InterruptedException {
    OutboxAdmin admin = OutboxAdmin.create(ds);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (admin.count(EventStatus.PUBLISHED) < expected && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  private static Duration percentile(List<Duration> values, int p) {
    if (values.isEmpty()) {
      return Duration.ZERO;
    }
    List<Duration> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
  }

  private static byte[] randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return key;
  }
}
