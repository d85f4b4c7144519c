package dev.outboxkit.samples.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.samples.ShopChecks;
import dev.outboxkit.samples.ShopDatabase;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What the servlet sample does in any servlet container: deployed with the database bound in JNDI
 * as a container resource, driven with real HTTP requests, its events sent as signed webhooks to a
 * real receiver. A subclass deploys it in its container (Jetty 12 here; Tomcat 9 in samples-javaee,
 * which compiles a copy of this file, so it names no servlet API) and adds what is the container's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ServletSampleContract {
  /** Bound of the waits; generous for a loaded machine, never a timing under test. */
  static final Duration PATIENCE = Duration.ofSeconds(20);

  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  /** The console's users, which each container's realm has: name, password, role. */
  static final String[][] CONSOLE_USERS = {
    {"ops-viewer", "viewer-pw-1", "outbox-viewer"},
    {"ops-operator", "operator-pw-1", "outbox-operator"},
    {"shop-clerk", "clerk-pw-1", "shop-clerk"}
  };

  @RegisterExtension final FreshDatabase database = ShopDatabase.fresh(this::flavor);

  private final HttpClient http = HttpClient.newHttpClient();
  TestDatabase db;
  WebhookReceiver receiver;
  private URI orders;

  protected abstract Flavor flavor();

  /**
   * Deploys the sample in a started container that sends its webhooks to this receiver.
   *
   * @return the URI of the sample's orders servlet
   */
  abstract URI deploy(URI webhooks) throws Exception;

  /** Stops what {@link #deploy} started, as far as it got (also after it failed). */
  abstract void undeploy() throws Exception;

  /** Whether the container runs in the test's JVM, where the app's MBeans can be read. */
  boolean sharesThisJvm() {
    return true;
  }

  @BeforeEach
  void deployShop() throws Exception {
    db = database.get();
    receiver = new WebhookReceiver(SECRET);
    orders = deploy(receiver.uri());
  }

  /** Also after a test whose database or deployment never came: undoes what was done. */
  @AfterEach
  void undeployShop() throws Exception {
    try {
      undeploy();
    } finally { // a failed stop is reported, and the next test still gets a fresh receiver
      if (receiver != null) {
        receiver.close();
        receiver = null;
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

    ShopChecks.assertPublished(db, receiver, ids, PATIENCE);
    // The webhook id is the event id appended in the order's transaction.
    assertThat(receiver.received).containsExactlyInAnyOrderEntriesOf(eventIdsByOrder());
    assertThat(count("SELECT available FROM stock WHERE sku = 'tea'")).isEqualTo(90);
  }

  @Test
  void post_rolls_back_the_order_and_its_event_when_the_stock_cannot_cover_it() throws Exception {
    assertThat(post("o-big", "kettle", 2).statusCode()).isEqualTo(409);
    assertThat(post("o-small", "kettle", 1).statusCode()).isEqualTo(201);

    ShopChecks.assertOnlyTheSmallKettleOrderCommitted(db, receiver, PATIENCE);
  }

  @Test
  void post_answers_400_to_a_malformed_order_and_writes_nothing() throws Exception {
    assertThat(post("o-\"1", "tea", 1).statusCode()).isEqualTo(400);
    assertThat(post("o-2", "tea", 0).statusCode()).isEqualTo(400);

    assertThat(count("SELECT COUNT(*) FROM orders")).isZero();
    assertThat(count("SELECT COUNT(*) FROM outbox_event")).isZero();
  }

  @Test
  void the_relays_meters_are_scraped_by_prometheus_and_shown_over_jmx_until_undeployed()
      throws Exception {
    assertThat(post("o-1", "tea", 1).statusCode()).isEqualTo(201);
    ShopChecks.assertPublished(db, receiver, List.of("o-1"), PATIENCE);

    // The listener counts after the acknowledgement commits: wait for the count, not the row.
    Pattern published =
        Pattern.compile(
            "^outboxkit_relay_published_events_total\\{[^}]*relay=\"orders-web\"[^}]*} 1\\.0$",
            Pattern.MULTILINE);
    Await.until(
        () -> published.matcher(scrape().body()).find(),
        PATIENCE,
        () -> "the published event counted; the scrape says:\n" + scrape().body());
    HttpResponse<String> scrape = scrape();
    assertThat(scrape.statusCode()).isEqualTo(200);
    assertThat(scrape.headers().firstValue("Content-Type"))
        .hasValueSatisfying( // Tomcat writes it without spaces
            type -> assertThat(type.replace(" ", "")).startsWith("text/plain;version=0.0.4"));
    assertThat(scrape.body())
        .containsPattern(
            "(?m)^outboxkit_outbox_pending_events\\{[^}]*relay=\"orders-web\"[^}]*} 0\\.0$");
    if (!sharesThisJvm()) {
      return; // the app's MBeans are in the container's JVM
    }
    assertThat(outboxkitMBeans())
        .anySatisfy(
            name -> {
              assertThat(name.getKeyProperty("name")).startsWith("outboxkitRelayPublished");
              assertThat(ManagementFactory.getPlatformMBeanServer().getAttribute(name, "Count"))
                  .isEqualTo(1L);
            });

    undeploy();

    assertThat(outboxkitMBeans()).as("MBeans left by the undeployed app").isEmpty();
  }

  /**
   * The console mounted by web.xml at /shop/outbox/, behind the container's realm: nothing without
   * signing in or for a user of another role, a viewer sees the backlog and cannot replay, an
   * operator replays a DEAD event after a dry run and the audit row records it.
   */
  @Test
  void the_operator_console_is_served_behind_the_containers_realm() throws Exception {
    assertThat(post("o-1", "tea", 1).statusCode()).isEqualTo(201);
    ShopChecks.assertPublished(db, receiver, List.of("o-1"), PATIENCE);
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.executeUpdate(
          "UPDATE outbox_event SET status = 'DEAD', last_error = 'HTTP 503 from crm',"
              + " attempts = 3");
    }
    URI console = orders.resolve("outbox/");
    assertThat(console(console, null, "GET", null).statusCode()).isEqualTo(401);
    assertThat(console(console, CONSOLE_USERS[2], "GET", null).statusCode()).isEqualTo(403);
    HttpResponse<String> overview = console(console, CONSOLE_USERS[0], "GET", null);
    assertThat(overview.statusCode()).isEqualTo(200);
    assertThat(overview.body())
        .contains("<td id=\"dead\">1</td>", "href=\"/shop/outbox/failures\"");
    assertThat(overview.headers().firstValue("Content-Security-Policy")).isPresent();

    String viewerToken = token(console, CONSOLE_USERS[0]);
    String replay = "reason=HTTP+503+from+crm&confirm=yes&expected=1&csrf=";
    assertThat(
            console(console.resolve("replay"), CONSOLE_USERS[0], "POST", replay + viewerToken)
                .statusCode())
        .as("a viewer may not replay")
        .isEqualTo(403);
    String operatorToken = token(console, CONSOLE_USERS[1]);
    HttpResponse<String> dryRun =
        console(
            console.resolve("replay"),
            CONSOLE_USERS[1],
            "POST",
            "reason=HTTP+503+from+crm&csrf=" + operatorToken);
    assertThat(dryRun.body()).contains("<strong id=\"dry-run-rows\">1</strong>");
    assertThat(
            console(console.resolve("replay"), CONSOLE_USERS[1], "POST", replay + operatorToken)
                .statusCode())
        .isEqualTo(303);
    Await.until(
        () -> admin().count(EventStatus.PUBLISHED) == 1, PATIENCE, "the replayed event sent again");
    assertThat(
            count(
                "SELECT COUNT(*) FROM outbox_console_audit WHERE actor = 'ops-operator'"
                    + " AND operation = 'replay' AND dry_run_rows = 1 AND changed_rows = 1"))
        .isEqualTo(1);
  }

  /** A request to the console, signed in as {@code user} (name, password) or not at all. */
  private HttpResponse<String> console(URI uri, String[] user, String method, String form)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20));
    if (user != null) {
      b.header(
          "Authorization",
          "Basic "
              + Base64.getEncoder()
                  .encodeToString((user[0] + ":" + user[1]).getBytes(StandardCharsets.UTF_8)));
    }
    if ("POST".equals(method)) {
      b.header("Content-Type", "application/x-www-form-urlencoded")
          .header("Origin", uri.getScheme() + "://" + uri.getRawAuthority())
          .POST(HttpRequest.BodyPublishers.ofString(form));
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private String token(URI console, String[] user) throws Exception {
    Matcher m =
        Pattern.compile("\"csrfToken\":\"([^\"]+)\"")
            .matcher(console(console.resolve("api/overview"), user, "GET", null).body());
    assertThat(m.find()).as("csrfToken in api/overview").isTrue();
    return m.group(1);
  }

  private HttpResponse<String> scrape() {
    try {
      return http.send(
          HttpRequest.newBuilder(orders.resolve("metrics")).timeout(Duration.ofSeconds(20)).build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException("scrape failed", e);
    }
  }

  private static Set<ObjectName> outboxkitMBeans() throws MalformedObjectNameException {
    Set<ObjectName> names = new HashSet<>();
    for (ObjectName name :
        ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("metrics:*"), null)) {
      String meter = name.getKeyProperty("name");
      if (meter != null && meter.startsWith("outboxkit")) {
        names.add(name);
      }
    }
    return names;
  }

  HttpResponse<String> post(String id, String sku, int quantity) throws Exception {
    String form = "id=" + id + "&sku=" + sku + "&quantity=" + quantity;
    return http.send(
        HttpRequest.newBuilder(orders)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  OutboxAdmin admin() {
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

  long count(String sql) throws SQLException {
    return Sql.queryLong(db.dataSource(), sql);
  }
}
