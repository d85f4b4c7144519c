package dev.outboxkit.samples.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jetty.ee10.plus.webapp.EnvConfiguration;
import org.eclipse.jetty.ee10.plus.webapp.PlusConfiguration;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.plus.jndi.Resource;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The servlet sample deployed as a web app, from its own {@code WEB-INF/web.xml}, in a real servlet
 * container (Jetty 12, Jakarta EE 10) with the database bound in JNDI as a container resource,
 * driven with real HTTP requests. Events go out as signed webhooks to a real receiver. One subclass
 * per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ServletSampleContractTest {
  /** Bound of the waits; generous for a loaded machine, never a timing under test. */
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  @RegisterExtension
  final FreshDatabase database =
      FreshDatabase.of(this::flavor)
          .setUp(ServletSampleContractTest::createTables)
          .beforeEachTest(
              "DELETE FROM orders",
              "DELETE FROM stock",
              "DELETE FROM outbox_event",
              "INSERT INTO stock (sku, available) VALUES ('tea', 100), ('kettle', 1)");

  private final HttpClient http = HttpClient.newHttpClient();
  private TestDatabase db;
  private HikariDataSource containerPool;
  private WebhookReceiver receiver;
  private Server server;
  private WebAppContext webapp;
  private URI orders;

  protected abstract Flavor flavor();

  private static void createTables(TestDatabase fresh) throws Exception {
    // The build points java.io.tmpdir at target/tmp; Jetty unpacks the web app there.
    Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    try (Connection c = fresh.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE orders (id VARCHAR(36) PRIMARY KEY, sku VARCHAR(36) NOT NULL,"
              + " quantity INT NOT NULL)");
      s.execute("CREATE TABLE stock (sku VARCHAR(36) PRIMARY KEY, available INT NOT NULL)");
      OutboxSchema.create(c);
    }
  }

  @BeforeEach
  void deploy() throws Exception {
    db = database.get();
    receiver = new WebhookReceiver(SECRET);

    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    webapp = new WebAppContext();
    webapp.setContextPath("/shop");
    webapp.setBaseResourceAsPath(Path.of("src/main/webapp"));
    webapp.setParentLoaderPriority(true); // the sample's classes come from the test class path
    webapp.addConfiguration(new EnvConfiguration(), new PlusConfiguration());
    // What an operator configures in the container, outside the war.
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_URL_PARAM, receiver.uri().toString());
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_SECRET_PARAM, SECRET);
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_ALLOW_LOCAL_PARAM, "true");
    webapp.setInitParameter(OutboxRelayListener.SHUTDOWN_TIMEOUT_PARAM, "PT1S");
    // The container's pool, bound as the resource that web.xml's resource-ref jdbc/orders names.
    containerPool = db.newDataSource(8);
    new Resource(webapp, "jdbc/orders", containerPool);
    server.setHandler(webapp);
    server.start();
    assertThat(webapp.isAvailable()).as("web app deployed").isTrue();
    orders = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/shop/orders");
  }

  /** Also after a test whose database or deployment never came: undoes what was done. */
  @AfterEach
  void undeploy() throws Exception {
    try {
      if (server != null) {
        server.stop();
      }
    } finally { // a failed stop is reported, and the next test still gets a fresh receiver and pool
      server = null;
      if (receiver != null) {
        receiver.close();
        receiver = null;
      }
      if (containerPool != null) {
        containerPool.close();
        containerPool = null;
      }
    }
  }

  @Test
  void post_places_orders_and_the_relay_publishes_their_events() throws Exception {
    List<String> ids = List.of("o-1", "o-2", "o-3", "o-4", "o-5");
    for (String id : ids) {
      HttpResponse<String> response = post(id, "tea", 2);
      assertThat(response.statusCode()).as("POST %s", id).isEqualTo(201);
      assertThat(response.headers().firstValue("Location")).hasValue("/shop/orders/" + id);
    }

    Await.until(() -> receiver.received.size() >= ids.size(), PATIENCE, "every event delivered");
    assertThat(receiver.received.values()).containsExactlyInAnyOrderElementsOf(ids);
    // The webhook id is the event id appended in the order's transaction.
    assertThat(receiver.received).containsExactlyInAnyOrderEntriesOf(eventIdsByOrder());
    Await.until(
        () -> admin().count(EventStatus.PUBLISHED) == ids.size(),
        PATIENCE,
        "every event PUBLISHED");
    assertThat(count("SELECT COUNT(*) FROM orders")).isEqualTo(ids.size());
    assertThat(count("SELECT available FROM stock WHERE sku = 'tea'")).isEqualTo(90);
  }

  @Test
  void post_rolls_back_the_order_and_its_event_when_the_stock_cannot_cover_it() throws Exception {
    assertThat(post("o-big", "kettle", 2).statusCode()).isEqualTo(409);
    assertThat(post("o-small", "kettle", 1).statusCode()).isEqualTo(201);

    Await.until(
        () -> receiver.received.containsValue("o-small"), PATIENCE, "the committed order's event");
    assertThat(count("SELECT COUNT(*) FROM orders WHERE id = 'o-big'")).isZero();
    assertThat(count("SELECT COUNT(*) FROM outbox_event WHERE aggregate_id = 'o-big'")).isZero();
    assertThat(count("SELECT COUNT(*) FROM outbox_event")).isEqualTo(1);
    assertThat(receiver.received).doesNotContainValue("o-big");
    assertThat(count("SELECT available FROM stock WHERE sku = 'kettle'")).isZero();
  }

  @Test
  void post_answers_400_to_a_malformed_order_and_writes_nothing() throws Exception {
    assertThat(post("o-\"1", "tea", 1).statusCode()).isEqualTo(400);
    assertThat(post("o-2", "tea", 0).statusCode()).isEqualTo(400);

    assertThat(count("SELECT COUNT(*) FROM orders")).isZero();
    assertThat(count("SELECT COUNT(*) FROM outbox_event")).isZero();
  }

  @Test
  void stopping_the_web_app_closes_the_relay_and_hands_back_the_event_in_flight() throws Exception {
    receiver.hold("o-held");
    assertThat(post("o-held", "tea", 1).statusCode()).isEqualTo(201);
    assertThat(receiver.awaitHeld(20)).as("the relay sent the event").isTrue();
    assertThat(admin().count(EventStatus.IN_FLIGHT)).isEqualTo(1);
    assertThat(relayThreads()).isNotEmpty();

    webapp.stop(); // undeploy: contextDestroyed closes the relay

    Await.until(() -> relayThreads().isEmpty(), PATIENCE, "relay threads gone");
    assertThat(webapp.getServletContext().getAttribute(OutboxRelayListener.RELAY_ATTRIBUTE))
        .isNull();
    // Claimed but never confirmed: back to PENDING at once, not left to wait out its lease.
    assertThat(admin().count(EventStatus.IN_FLIGHT)).isZero();
    assertThat(admin().count(EventStatus.PENDING)).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM outbox_event WHERE lease_owner IS NULL")).isEqualTo(1);
    assertThat(receiver.received).isEmpty();
    // Neither the servlet nor the relay kept a connection of the container's pool.
    assertThat(containerPool.getHikariPoolMXBean().getActiveConnections()).isZero();
  }

  private HttpResponse<String> post(String id, String sku, int quantity) throws Exception {
    String form = "id=" + id + "&sku=" + sku + "&quantity=" + quantity;
    return http.send(
        HttpRequest.newBuilder(orders)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private OutboxAdmin admin() {
    return OutboxAdmin.create(db.dataSource());
  }

  private Map<String, String> eventIdsByOrder() throws SQLException {
    Map<String, String> ids = new TreeMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, aggregate_id FROM outbox_event")) {
      while (rs.next()) {
        ids.put(rs.getString(1), rs.getString(2));
      }
    }
    return ids;
  }

  private long count(String sql) throws SQLException {
    return Sql.queryLong(db.dataSource(), sql);
  }

  private static List<String> relayThreads() {
    String prefix = "outboxkit-" + OutboxRelayListener.RELAY_NAME;
    List<String> names = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith(prefix)) {
        names.add(t.getName());
      }
    }
    return names;
  }
}
