package dev.outboxkit.samples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxkit.http.WebhookVerifier;
import dev.outboxkit.jdbc.Inbox;
import dev.outboxkit.jdbc.OutboxSchema;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The receiving side of the demo: another service with its own database that takes signed webhooks,
 * verifies them with {@link WebhookVerifier}, and creates one shipment per order, using {@link
 * Inbox} to turn at-least-once delivery into an exactly-once effect. It misbehaves twice on
 * purpose: it answers 503 before doing anything for one order, and for another it does the work but
 * its answer is lost (500), so the relay delivers that event again.
 */
final class ShippingService implements AutoCloseable {
  final AtomicInteger received = new AtomicInteger();
  final AtomicInteger refusedSignatures = new AtomicInteger();
  final AtomicInteger duplicates = new AtomicInteger();
  private final Set<String> misbehaved = ConcurrentHashMap.newKeySet();
  private final String unavailableFor;
  private final String answerLostFor;
  private final WebhookVerifier verifier;
  private final Inbox inbox = Inbox.create();
  private final JdbcConnectionPool db;
  private final HttpServer server;

  ShippingService(String secret, String unavailableFor, String answerLostFor) throws Exception {
    this.verifier = WebhookVerifier.of(secret);
    this.unavailableFor = unavailableFor;
    this.answerLostFor = answerLostFor;
    this.db =
        JdbcConnectionPool.create(
            "jdbc:h2:mem:shipping-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1", "sa", "");
    try (Connection c = db.getConnection()) {
      c.createStatement()
          .execute("CREATE TABLE shipments (order_id VARCHAR(20) PRIMARY KEY, event_id UUID)");
      OutboxSchema.createInbox(c);
    }
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/webhooks/orders", this::handle);
    server.start();
  }

  URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/webhooks/orders");
  }

  long shipments() throws SQLException {
    try (Connection c = db.getConnection();
        ResultSet rs = c.createStatement().executeQuery("SELECT COUNT(*) FROM shipments")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    byte[] body;
    try (InputStream in = exchange.getRequestBody()) {
      body = in.readAllBytes();
    }
    received.incrementAndGet();
    WebhookVerifier.Result check = verifier.verify(exchange.getRequestHeaders(), body);
    if (!check.isValid()) {
      refusedSignatures.incrementAndGet();
      System.out.printf("[shipping] refused a webhook: %s%n", check.message());
      reply(exchange, 401);
      return;
    }
    String orderId = exchange.getRequestHeaders().getFirst("outbox-aggregate-id");
    UUID eventId = UUID.fromString(check.webhookId().orElseThrow());
    if (orderId.equals(unavailableFor) && misbehaved.add(orderId)) {
      System.out.printf("[shipping] %s: answering 503 (simulated overload)%n", orderId);
      reply(exchange, 503);
      return;
    }
    try {
      boolean created = createShipment(orderId, eventId);
      if (!created) {
        duplicates.incrementAndGet();
      }
      System.out.printf(
          "[shipping] %s: signature verified, event %s %s%n",
          orderId, eventId, created ? "new: shipment created" : "already processed: skipped");
    } catch (SQLException e) {
      reply(exchange, 500);
      return;
    }
    if (orderId.equals(answerLostFor) && misbehaved.add(orderId)) {
      System.out.printf("[shipping] %s: processed, but the answer is lost (500)%n", orderId);
      reply(exchange, 500);
      return;
    }
    reply(exchange, 204);
  }

  /** One transaction: the inbox row and the shipment commit together. */
  private boolean createShipment(String orderId, UUID eventId) throws SQLException {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      if (!inbox.markProcessed(c, "shipping", eventId)) {
        c.rollback();
        return false;
      }
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO shipments VALUES (?, ?)")) {
        ps.setString(1, orderId);
        ps.setObject(2, eventId);
        ps.executeUpdate();
      }
      c.commit();
      return true;
    }
  }

  private static void reply(HttpExchange exchange, int status) throws IOException {
    exchange.sendResponseHeaders(status, -1);
    exchange.close();
  }

  @Override
  public void close() {
    server.stop(0);
    db.dispose();
  }
}
