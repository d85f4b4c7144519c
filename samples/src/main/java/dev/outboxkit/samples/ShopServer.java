package dev.outboxkit.samples;

import dev.outboxkit.console.ConsoleSchema;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.samples.servlet.OutboxRelayListener;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Base64;
import org.eclipse.jetty.ee10.plus.webapp.EnvConfiguration;
import org.eclipse.jetty.ee10.plus.webapp.PlusConfiguration;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.plus.jndi.Resource;
import org.eclipse.jetty.security.HashLoginService;
import org.eclipse.jetty.security.UserStore;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.security.Credential;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The servlet sample running, for a look at its operator console: the sample's own {@code web.xml}
 * (orders servlet, relay listener, console at {@code /shop/outbox/}) in Jetty 12 on 127.0.0.1, its
 * database on in-memory H2 bound as {@code jdbc/orders}, its webhooks going to the demo's shipping
 * service, and one operator in the container's realm. It places a few orders, prints where to look
 * and with which password, and runs until stopped with Ctrl+C.
 *
 * <p>Run it with {@code mvn -q -pl samples -am package -DskipTests exec:java
 * -Dexec.mainClass=dev.outboxkit.samples.ShopServer}; {@code -Dshop.port=...} picks another port
 * than 8080.
 */
public final class ShopServer {
  private ShopServer() {}

  /**
   * Runs the sample until the process is stopped.
   *
   * @param args ignored
   * @throws Exception if the database, the receiver or the server cannot start
   */
  public static void main(String[] args) throws Exception {
    JdbcConnectionPool ds =
        JdbcConnectionPool.create("jdbc:h2:mem:shop;DB_CLOSE_DELAY=-1", "sa", "");
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE orders (id VARCHAR(36) PRIMARY KEY, sku VARCHAR(36) NOT NULL,"
              + " quantity INT NOT NULL)");
      s.execute("CREATE TABLE stock (sku VARCHAR(36) PRIMARY KEY, available INT NOT NULL)");
      s.execute("INSERT INTO stock (sku, available) VALUES ('tea', 100), ('kettle', 1)");
      OutboxSchema.create(c);
      ConsoleSchema.create(c);
    }
    String secret = "whsec_" + Base64.getEncoder().encodeToString(random(32));
    ShippingService shipping = new ShippingService(secret, "o-2", null);

    Server server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(Integer.getInteger("shop.port", 8080));
    server.addConnector(connector);
    WebAppContext webapp = new WebAppContext();
    webapp.setContextPath("/shop");
    webapp.setBaseResourceAsPath(webappDirectory());
    webapp.setParentLoaderPriority(true); // the sample's classes come from this class path
    webapp.addConfiguration(new EnvConfiguration(), new PlusConfiguration());
    // What an operator configures in the container, outside the war.
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_URL_PARAM, shipping.uri().toString());
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_SECRET_PARAM, secret);
    webapp.setInitParameter(OutboxRelayListener.WEBHOOK_ALLOW_LOCAL_PARAM, "true");
    new Resource(webapp, "jdbc/orders", ds);
    // The container's realm, which web.xml's login-config names: one operator.
    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random(12));
    HashLoginService realm = new HashLoginService("OutboxKit console");
    UserStore users = new UserStore();
    users.addUser("ops", Credential.getCredential(password), new String[] {"outbox-operator"});
    realm.setUserStore(users);
    server.addBean(realm);
    server.setHandler(webapp);
    server.start();

    String shop = "http://127.0.0.1:" + connector.getLocalPort() + "/shop/";
    HttpClient http = HttpClient.newHttpClient();
    for (String order :
        new String[] {
          "o-1&sku=tea&quantity=2",
          "o-2&sku=tea&quantity=1",
          "o-3&sku=kettle&quantity=1",
          "o-4&sku=kettle&quantity=1"
        }) {
      HttpResponse<String> placed =
          http.send(
              HttpRequest.newBuilder(URI.create(shop + "orders"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .POST(HttpRequest.BodyPublishers.ofString("id=" + order))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      System.out.printf("[shop] POST /shop/orders id=%s -> %d%n", order, placed.statusCode());
    }
    System.out.printf(
        "%nThe servlet sample runs at %sorders; its operator console at %soutbox/"
            + "  (user ops, password %s). Ctrl+C stops it.%n",
        shop, shop, password);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    server.stop();
                  } catch (Exception e) {
                    e.printStackTrace();
                  }
                  shipping.close();
                  ds.dispose();
                }));
    server.join();
  }

  /** The sample's web application directory, from the repository root or the module's. */
  private static Path webappDirectory() {
    for (String candidate : new String[] {"samples/src/main/webapp", "src/main/webapp"}) {
      Path p = Path.of(candidate);
      if (Files.isDirectory(p.resolve("WEB-INF"))) {
        return p.toAbsolutePath();
      }
    }
    throw new IllegalStateException(
        "run from the repository or the samples directory: src/main/webapp not found");
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }
}
