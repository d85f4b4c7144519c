package dev.outboxkit.samples.ejb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.samples.ShopChecks;
import dev.outboxkit.samples.ShopDatabase;
import dev.outboxkit.samples.servlet.WebhookReceiver;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Distributions;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Ports;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The EJB sample's WAR file in a full Java EE 8 application server, deployed as operations deploy
 * it: the Payara Server 5 distribution from Maven Central, unpacked and started as its own process
 * with {@code asadmin start-domain}, its resources made and the WAR deployed by {@code asadmin
 * multimode} running the shipped script {@code src/main/payara/outboxkit-orders.asadmin}: a JTA
 * pool for {@link OrderService}, a non-transactional pool for {@link OutboxRelayBean}, the webhook
 * settings as JNDI custom resources, the default {@code ManagedThreadFactory}. Orders go in over
 * HTTP ({@link OrdersServlet}), their events out as signed webhooks to a receiver in this JVM.
 * Undeploying with {@code asadmin undeploy} leaves no thread of the relay's alive in the server
 * (read with {@code jcmd Thread.print}) and nothing IN_FLIGHT. One subclass per database.
 *
 * <p>Payara rather than TomEE: both run on Java 17 (../shared/TEST-INFRA-NEXT.md §3); Payara is the
 * one whose resources are made with the server's own administration tool, as a Java EE shop's
 * operations team does, and whose pools are the application server's own (TomEE's are DBCP, as in
 * the Tomcat tests).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class PayaraEjbSampleTest {
  /** Bound of the waits; generous for a loaded machine, never a timing under test. */
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  /** How the default ManagedThreadFactory names its threads in Payara 5. */
  private static final String MANAGED_THREAD = "concurrent/__defaultManagedThreadFactory-Thread-";

  @RegisterExtension final FreshDatabase database = ShopDatabase.fresh(this::flavor);

  private final HttpClient http = HttpClient.newHttpClient();
  private TestDatabase db;
  private WebhookReceiver receiver;
  private Path home;
  private int adminPort;
  private int httpPort;
  private boolean deployed;

  protected abstract Flavor flavor();

  /** The server is started and the WAR deployed once, before the first test (with its database). */
  @BeforeEach
  void deployOnce() throws Exception {
    if (receiver != null) {
      receiver.received.clear();
      return;
    }
    db = database.get();
    receiver = new WebhookReceiver(SECRET);
    home = Distributions.unpack(Path.of(System.getProperty("payara.distribution")), "payara-");
    configureDomain();
    asadmin("start-domain", "domain1");
    asadmin("multimode", "--file", deploymentScript().toString());
    deployed = true;
  }

  @AfterAll
  void stopServer() throws Exception {
    // Each step runs whatever the one before it did: a failed undeploy must not leave the server
    // process running on the machine, nor a failed stop leave it behind either.
    try {
      if (home != null && deployed) {
        asadmin("undeploy", "outboxkit-orders");
      }
    } finally {
      try {
        if (home != null) {
          stopDomain();
          Distributions.delete(home);
        }
      } finally {
        if (receiver != null) {
          receiver.close();
        }
      }
    }
  }

  /** {@code asadmin stop-domain}; if that fails, the server's process is killed by its pid. */
  private void stopDomain() throws Exception {
    Path pidFile = home.resolve("glassfish/domains/domain1/config/pid");
    String pid = Files.exists(pidFile) ? Files.readString(pidFile).trim() : null;
    try {
      asadmin("stop-domain", "domain1");
    } finally {
      if (pid != null) {
        ProcessHandle.of(Long.parseLong(pid))
            .filter(ProcessHandle::isAlive)
            .ifPresent(
                server -> {
                  server.destroyForcibly();
                  server.onExit().join();
                });
      }
    }
  }

  @Test
  @Order(1)
  void placed_orders_are_published_by_the_scheduled_relay() throws Exception {
    List<String> ids = List.of("o-1", "o-2", "o-3");
    for (String id : ids) {
      assertOrder(id, "tea", "2", 201);
    }

    ShopChecks.assertPublished(db, receiver, ids, PATIENCE);
    assertThat(count("SELECT available FROM stock WHERE sku = 'tea'")).isEqualTo(94);
  }

  @Test
  @Order(2)
  void a_rolled_back_order_leaves_neither_the_order_nor_its_event() throws Exception {
    assertOrder("o-big", "kettle", "2", 409);
    assertOrder("o-\"bad", "tea", "1", 400);
    assertOrder("o-small", "kettle", "1", 201);

    ShopChecks.assertOnlyTheSmallKettleOrderCommitted(db, receiver, PATIENCE);
  }

  @Test
  @Order(3)
  void the_relay_runs_on_the_servers_managed_threads_and_undeploy_leaves_none() throws Exception {
    assertOrder("o-threads", "tea", "1", 201);
    Await.until(
        () -> receiver.received.containsValue("o-threads"), PATIENCE, "the event delivered");

    List<String> running = serverThreads();
    assertThat(running)
        .as("the server's threads")
        .anyMatch(name -> name.startsWith(MANAGED_THREAD))
        .noneMatch(name -> name.startsWith("outboxkit-"));

    asadmin("undeploy", "outboxkit-orders");
    deployed = false;

    Await.until(
        () -> serverThreads().stream().noneMatch(name -> name.startsWith(MANAGED_THREAD)),
        PATIENCE,
        "no managed thread of the application left");
    assertThat(serverThreads()).noneMatch(name -> name.startsWith("outboxkit-"));
    assertThat(OutboxAdmin.create(db.dataSource()).count(EventStatus.IN_FLIGHT)).isZero();
    // The WAR brings its slf4j provider: the relay's lines reach server.log.
    assertThat(Files.readString(serverLogFile())).doesNotContain("No SLF4J providers");
    System.out.printf(
        "Thread census: Payara 5/%s EJB sample: %d managed threads while deployed, none after"
            + " undeploy%n",
        flavor(), running.stream().filter(name -> name.startsWith(MANAGED_THREAD)).count());
  }

  /** POSTs an order and expects the given status; else fails with the end of the server's log. */
  private void assertOrder(String id, String sku, String quantity, int status) throws Exception {
    assertThat(order(id, sku, quantity)).as("order %s%s", id, serverLog()).isEqualTo(status);
  }

  private int order(String id, String sku, String quantity) throws Exception {
    String form =
        "id="
            + java.net.URLEncoder.encode(id, StandardCharsets.UTF_8)
            + "&sku="
            + sku
            + "&quantity="
            + quantity;
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/orders/orders"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .timeout(PATIENCE)
                .POST(HttpRequest.BodyPublishers.ofString(form))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /**
   * The shipped asadmin script with this test's values: the driver jar of this flavour, the fresh
   * database, the receiver, the WAR file the build made.
   */
  private Path deploymentScript() throws Exception {
    boolean postgres = flavor() == Flavor.POSTGRES;
    Class<?> driver =
        Class.forName(postgres ? "org.postgresql.Driver" : "com.mysql.cj.jdbc.Driver");
    String password = credential(db.password(), "password");
    Map<String, String> values =
        Map.of(
            "driver.jar",
            Path.of(driver.getProtectionDomain().getCodeSource().getLocation().toURI()).toString(),
            "datasource.class",
            postgres ? "org.postgresql.ds.PGSimpleDataSource" : "com.mysql.cj.jdbc.MysqlDataSource",
            "db.url",
            escaped(poolUrl()),
            "db.user",
            credential(db.user(), "user"),
            // Payara refuses a pool without a password (RAR8054), even where the server asks none.
            "db.password",
            password.isEmpty() ? "unused" : escaped(password),
            "webhook.url",
            escaped(receiver.uri().toString()),
            "webhook.secret",
            SECRET,
            "webhook.allow-local",
            "true",
            "war",
            System.getProperty("ejb.war"));
    String script = Files.readString(Path.of(System.getProperty("payara.script")));
    if (!postgres && password.isEmpty()) {
      // An account without a password (this machine's MariaDB root) cannot be given as pool
      // properties: asadmin refuses "password=" and Payara refuses a pool with a user but no
      // password (RAR8054). Connector/J then takes both from the URL (poolUrl).
      script = script.replace(":user=${db.user}:password=${db.password}", "");
    }
    for (Map.Entry<String, String> v : values.entrySet()) {
      script = script.replace("${" + v.getKey() + "}", v.getValue());
    }
    assertThat(script.lines().filter(line -> !line.startsWith("#")))
        .as("every placeholder filled")
        .noneMatch(line -> line.contains("${"));
    Path file = home.resolve("outboxkit-orders.asadmin");
    Files.writeString(file, script);
    return file;
  }

  /** A property value for asadmin's multimode: ':' and '=' escaped, as the script's header says. */
  private static String escaped(String value) {
    return value.replace(":", "\\\\:").replace("=", "\\\\=");
  }

  /**
   * The database's URL less its user and password parameters, which the pool gets as properties.
   * Connector/J also gets {@code fallbackToSystemKeyStore=false}: inside Payara, the JVM's {@code
   * javax.net.ssl.keyStore} is the server's own, and Connector/J would offer its certificate to the
   * database as a client certificate, failing the TLS handshake ("Communications link failure").
   */
  private String poolUrl() {
    String url = db.jdbcUrl();
    int q = url.indexOf('?');
    List<String> params = new ArrayList<>();
    if (q >= 0) {
      Arrays.stream(url.substring(q + 1).split("&"))
          .filter(p -> !p.startsWith("user=") && !p.startsWith("password="))
          .forEach(params::add);
      url = url.substring(0, q);
    }
    if (flavor() != Flavor.POSTGRES) {
      params.add("fallbackToSystemKeyStore=false");
      String password = credential(db.password(), "password");
      if (password.isEmpty()) {
        params.add("user=" + credential(db.user(), "user"));
        params.add("password=");
      }
    }
    return url + (params.isEmpty() ? "" : "?" + String.join("&", params));
  }

  /** The given credential, or the one the JDBC URL carries as a query parameter, or empty. */
  private String credential(String given, String parameter) {
    if (given != null) {
      return given;
    }
    Matcher m = Pattern.compile("[?&]" + parameter + "=([^&]*)").matcher(db.jdbcUrl());
    return m.find() ? URLDecoder.decode(m.group(1), StandardCharsets.UTF_8) : "";
  }

  /**
   * Ports of our own, every listener on loopback, and Payara's data grid (Hazelcast) off: it would
   * bind and look for peers on the machine's other addresses.
   */
  private void configureDomain() throws IOException {
    httpPort = Ports.unused();
    adminPort = Ports.unused();
    Path file = home.resolve("glassfish/domains/domain1/config/domain.xml");
    String xml = Files.readString(file);
    String[][] edits = {
      {"port=\"8080\" protocol=\"http-listener-1\"", listener(httpPort, "http-listener-1")},
      {"port=\"8181\" protocol=\"http-listener-2\"", listener(Ports.unused(), "http-listener-2")},
      {"port=\"4848\" protocol=\"admin-listener\"", listener(adminPort, "admin-listener")},
      {"address=\"0.0.0.0\" port=\"3700\"", loopback(Ports.unused())},
      {"address=\"0.0.0.0\" port=\"3820\"", loopback(Ports.unused())},
      {"address=\"0.0.0.0\" port=\"3920\"", loopback(Ports.unused())},
      {"address=\"0.0.0.0\" port=\"8686\"", loopback(Ports.unused())},
      {
        "name=\"JMS_PROVIDER_PORT\" value=\"7676\"",
        "name=\"JMS_PROVIDER_PORT\" value=\"" + Ports.unused() + "\""
      },
      {
        "start-port=\"5900\" das-port=\"4900\"",
        "start-port=\"" + Ports.unused() + "\" das-port=\"" + Ports.unused() + "\""
      },
      {
        "<hazelcast-config-specific-configuration></hazelcast-config-specific-configuration>",
        "<hazelcast-config-specific-configuration enabled=\"false\"></hazelcast-config-specific-configuration>"
      },
    };
    for (String[] edit : edits) {
      int at = xml.indexOf(edit[0]);
      assertThat(at).as("domain.xml has %s", edit[0]).isNotNegative();
      // The first occurrence: server-config, the running server's (the rest is a template).
      xml = xml.substring(0, at) + edit[1] + xml.substring(at + edit[0].length());
    }
    Files.writeString(file, xml);
  }

  private static String listener(int port, String protocol) {
    return "address=\"127.0.0.1\" port=\"" + port + "\" protocol=\"" + protocol + "\"";
  }

  private static String loopback(int port) {
    return "address=\"127.0.0.1\" port=\"" + port + "\"";
  }

  /** Runs asadmin against this server, on this test's JDK; fails with its output if it fails. */
  private void asadmin(String... command) throws Exception {
    List<String> line = new ArrayList<>();
    line.add(home.resolve("bin/asadmin").toString());
    line.addAll(List.of("--host", "127.0.0.1", "--port", Integer.toString(adminPort)));
    line.addAll(Arrays.asList(command));
    ProcessBuilder pb = new ProcessBuilder(line).redirectErrorStream(true);
    pb.environment().put("AS_JAVA", System.getProperty("java.home"));
    Path output = Files.createTempFile(home, "asadmin-", ".log");
    Process p = pb.redirectOutput(output.toFile()).start();
    if (!p.waitFor(5, TimeUnit.MINUTES)) {
      p.destroyForcibly();
    }
    String said = Files.readString(output);
    assertThat(p.exitValue())
        .as("asadmin %s said:%n%s%s", String.join(" ", command), said, serverLog())
        .isZero();
  }

  /** The names of the server's live threads, from the JDK's {@code jcmd Thread.print}. */
  private List<String> serverThreads() {
    try {
      String pid = Files.readString(home.resolve("glassfish/domains/domain1/config/pid")).trim();
      Process jcmd =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  pid,
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      String dump = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(jcmd.waitFor()).as("jcmd said:%n%s", dump).isZero();
      List<String> names = new ArrayList<>();
      for (String line : dump.split("\n")) {
        if (line.startsWith("\"")) {
          names.add(line.substring(1, line.indexOf('"', 1)));
        }
      }
      return names;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the server's threads", e);
    }
  }

  private Path serverLogFile() {
    return home.resolve("glassfish/domains/domain1/logs/server.log");
  }

  private String serverLog() {
    Path log = serverLogFile();
    try {
      List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
      return "\nserver.log:\n"
          + String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "\nno server.log: " + e;
    }
  }

  private long count(String sql) throws Exception {
    return Sql.queryLong(db.dataSource(), sql);
  }
}
