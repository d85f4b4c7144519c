package dev.outboxkit.samples.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.ThreadCensus;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.dbcp.dbcp2.BasicDataSource;
import org.apache.tomcat.util.descriptor.web.ContextResource;
import org.apache.tomcat.util.scan.StandardJarScanner;
import org.junit.jupiter.api.Test;

/**
 * The servlet sample, compiled for {@code javax.servlet} from the jakarta source of {@code
 * samples}, deployed from its own (javax) {@code WEB-INF/web.xml} in a real Servlet 4.0 container,
 * embedded Tomcat 9, with Tomcat's own connection pool (DBCP 2) bound in JNDI as the container
 * resource behind the {@code jdbc/orders} resource-ref, and driven with real HTTP requests. Events
 * go out as signed webhooks to a real receiver. One subclass per database.
 */
abstract class TomcatServletSampleContractTest extends ServletSampleContract {
  /** Threads others start for themselves: Tomcat's, the JDK HTTP clients', the test's. */
  private static final String[] NOT_OURS = {
    "http-nio-", // Tomcat's connector: acceptor, poller, request threads
    "Catalina-", // Tomcat's utility executor
    "ContainerBackgroundProcessor",
    "HttpClient-", // the JDK HttpClient's selector thread (JDK code, ends with its client)
    "ForkJoinPool.commonPool-worker-", // the JDK HttpClient's fallback once its pool is shut down
    "pool-", // the webhook receiver's request threads
    "test-", // the test kit's Hikari pool
    "mysql-cj-abandoned-connection-cleanup", // Connector/J's own
  };

  private Tomcat tomcat;
  private Context webapp;
  private BasicDataSource containerPool;
  private ThreadCensus census;

  @Override
  URI deploy(URI webhooks) throws Exception {
    census = ThreadCensus.take(NOT_OURS);

    Path base = Files.createTempDirectory(Path.of("target"), "tomcat-");
    tomcat = new Tomcat();
    tomcat.setBaseDir(base.toAbsolutePath().toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    tomcat.enableNaming(); // java:comp/env for the web app, as a standalone Tomcat has it
    tomcat.setAddDefaultWebXmlToWebapp(false); // no JSP servlet: this container has no Jasper
    // The generated javax web.xml (target/generated-webapp/WEB-INF/web.xml) is the descriptor.
    webapp = tomcat.addWebapp("/shop", Path.of(System.getProperty("servlet.webapp")).toString());
    // The sample's classes come from the test class path (the web app's parent loader); no jar
    // of it needs scanning for TLDs or fragments.
    StandardJarScanner scanner = new StandardJarScanner();
    scanner.setScanClassPath(false);
    scanner.setScanManifest(false);
    webapp.setJarScanner(scanner);
    // What an operator configures in the container, outside the war (context.xml <Parameter>).
    webapp.addParameter(OutboxRelayListener.WEBHOOK_URL_PARAM, webhooks.toString());
    webapp.addParameter(OutboxRelayListener.WEBHOOK_SECRET_PARAM, SECRET);
    webapp.addParameter(OutboxRelayListener.WEBHOOK_ALLOW_LOCAL_PARAM, "true");
    webapp.addParameter(OutboxRelayListener.SHUTDOWN_TIMEOUT_PARAM, "PT1S");
    // The container's pool, as context.xml's <Resource name="jdbc/orders" ...> declares it.
    webapp.getNamingResources().addResource(poolResource());
    // The console's users, in embedded Tomcat's default realm (web.xml's login-config asks BASIC).
    for (String[] u : CONSOLE_USERS) {
      tomcat.addUser(u[0], u[1]);
      tomcat.addRole(u[0], u[2]);
    }
    tomcat.start();
    assertThat(webapp.getState()).as("web app deployed").isEqualTo(LifecycleState.STARTED);
    containerPool =
        (BasicDataSource)
            ((StandardContext) webapp)
                .getNamingContextListener()
                .getEnvContext()
                .lookup("jdbc/orders");
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/shop/orders");
  }

  private ContextResource poolResource() {
    ContextResource pool = new ContextResource();
    pool.setName("jdbc/orders");
    pool.setType(DataSource.class.getName());
    pool.setAuth("Container");
    pool.setProperty("factory", "org.apache.tomcat.dbcp.dbcp2.BasicDataSourceFactory");
    pool.setProperty(
        "driverClassName",
        flavor() == Flavor.POSTGRES ? "org.postgresql.Driver" : "com.mysql.cj.jdbc.Driver");
    pool.setProperty("url", db.jdbcUrl());
    if (db.user() != null) {
      pool.setProperty("username", db.user());
    }
    if (db.password() != null) {
      pool.setProperty("password", db.password());
    }
    pool.setProperty("maxTotal", "8");
    pool.setProperty("maxWaitMillis", "10000");
    // A session time zone unlike the JVM's and UTC, as the test kit's pools have.
    pool.setProperty(
        "connectionInitSqls",
        flavor() == Flavor.POSTGRES
            ? "SET TIME ZONE 'Asia/Kathmandu'"
            : "SET time_zone = '+05:45'");
    // Tomcat closes a DBCP pool when the web app stops; keep it open here, so that the test can
    // count the connections still borrowed after the undeploy. It is closed in undeploy().
    pool.setCloseMethod("");
    return pool;
  }

  @Override
  void undeploy() throws Exception {
    try {
      if (tomcat != null) {
        tomcat.stop();
        tomcat.destroy();
      }
    } finally { // a failed stop is reported, and the next test still gets a fresh pool
      tomcat = null;
      if (containerPool != null) {
        containerPool.close();
        containerPool = null;
      }
    }
  }

  @Test
  void undeploy_leaves_no_relay_or_transport_thread_and_no_borrowed_connection() throws Exception {
    assertThat(post("o-sent", "tea", 1).statusCode()).isEqualTo(201);
    Await.until(
        () -> receiver.received.containsValue("o-sent"), PATIENCE, "the first event delivered");
    receiver.hold("o-held");
    assertThat(post("o-held", "tea", 1).statusCode()).isEqualTo(201);
    assertThat(receiver.awaitHeld(20)).as("the relay sent the event").isTrue();
    assertThat(admin().count(EventStatus.IN_FLIGHT)).isEqualTo(1);
    List<Thread> running = census.startedSince();
    // The sample sets no thread factory: the relay and the webhook transport start their own.
    assertThat(running).isNotEmpty().allMatch(t -> t.getName().startsWith("outboxkit-"));
    System.out.printf(
        "Thread census: Tomcat/%s servlet sample, no thread factory: %d library threads while"
            + " running %s%n",
        flavor(), running.size(), names(running));

    // Tomcat's own leak check runs as the web app's class loader stops, and warns through JULI.
    List<String> leakWarnings = new CopyOnWriteArrayList<>();
    Handler leakCheck =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
              leakWarnings.add(record.getMessage());
            }
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Logger loaderLog = Logger.getLogger("org.apache.catalina.loader.WebappClassLoaderBase");
    loaderLog.addHandler(leakCheck);
    try {
      webapp.stop(); // undeploy: contextDestroyed closes the relay and the transport
    } finally {
      loaderLog.removeHandler(leakCheck);
    }
    assertThat(leakWarnings).as("Tomcat's leak warnings on undeploy").isEmpty();

    Await.until(
        () -> census.startedSince().isEmpty(), PATIENCE, "every relay and transport thread gone");
    System.out.printf(
        "Thread census: Tomcat/%s servlet sample after undeploy: %d library threads%n",
        flavor(), census.startedSince().size());
    // Claimed but never confirmed: back to PENDING at once, not left to wait out its lease.
    assertThat(admin().count(EventStatus.IN_FLIGHT)).isZero();
    assertThat(admin().count(EventStatus.PENDING)).isEqualTo(1);
    assertThat(count("SELECT COUNT(*) FROM outbox_event WHERE lease_owner IS NULL")).isEqualTo(2);
    assertThat(receiver.received).doesNotContainValue("o-held");
    // Neither the servlet nor the relay kept a connection of the container's pool.
    assertThat(containerPool.isClosed()).isFalse();
    assertThat(containerPool.getNumActive()).isZero();
  }

  private static String names(List<Thread> threads) {
    return threads.stream()
        .map(Thread::getName)
        .sorted()
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
