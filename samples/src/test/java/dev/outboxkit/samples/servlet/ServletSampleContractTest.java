package dev.outboxkit.samples.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.testkit.Await;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.ee10.plus.webapp.EnvConfiguration;
import org.eclipse.jetty.ee10.plus.webapp.PlusConfiguration;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.plus.jndi.Resource;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.junit.jupiter.api.Test;

/**
 * The servlet sample deployed as a web app, from its own {@code WEB-INF/web.xml}, in a real servlet
 * container (Jetty 12, Jakarta EE 10) with the database bound in JNDI as a container resource,
 * driven with real HTTP requests. Events go out as signed webhooks to a real receiver. One subclass
 * per database.
 */
abstract class ServletSampleContractTest extends ServletSampleContract {
  private HikariDataSource containerPool;
  private Server server;
  private WebAppContext webapp;

  @Override
  URI deploy(URI webhooks) throws Exception {
    // The build points java.io.tmpdir at target/tmp; Jetty unpacks the web app there.
    Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
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
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_URL_PARAM, webhooks.toString());
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_SECRET_PARAM, SECRET);
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_ALLOW_LOCAL_PARAM, "true");
    webapp.setInitParameter(OutboxRelayListener.SHUTDOWN_TIMEOUT_PARAM, "PT1S");
    // The container's pool, bound as the resource that web.xml's resource-ref jdbc/orders names.
    containerPool = db.newDataSource(8);
    new Resource(webapp, "jdbc/orders", containerPool);
    // The container's realm, which web.xml's login-config names: the console's users.
    HashLoginService realm = new HashLoginService("OutboxKit console");
    UserStore users = new UserStore();
    for (String[] u : CONSOLE_USERS) {
      users.addUser(u[0], Credential.getCredential(u[1]), new String[] {u[2]});
    }
    realm.setUserStore(users);
    server.addBean(realm);
    server.setHandler(webapp);
    server.start();
    assertThat(webapp.isAvailable()).as("web app deployed").isTrue();
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/shop/orders");
  }

  @Override
  void undeploy() throws Exception {
    try {
      if (server != null) {
        server.stop();
      }
    } finally { // a failed stop is reported, and the next test still gets a fresh pool
      server = null;
      if (containerPool != null) {
        containerPool.close();
        containerPool = null;
      }
    }
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
