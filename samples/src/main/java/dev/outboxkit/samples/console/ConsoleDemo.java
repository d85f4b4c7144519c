package dev.outboxkit.samples.console;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.console.ConsoleSchema;
import dev.outboxkit.console.standalone.StandaloneConsole;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.time.Duration;
import java.util.Base64;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * The operator console on a demo's database: orders on in-memory H2, events relayed to a CRM that
 * refuses orders above a credit limit (they go DEAD) and to a billing service that is down (its
 * events are held back), and the standalone console on http://127.0.0.1:8090/ to look at it all and
 * replay. Runs until stopped with Ctrl+C.
 *
 * <p>Run it with {@code mvn -q -pl samples -am package -DskipTests exec:java
 * -Dexec.mainClass=dev.outboxkit.samples.console.ConsoleDemo}; it prints the user name and a fresh
 * password. {@code -Dconsole.port=...} picks another port.
 */
public final class ConsoleDemo {
  private ConsoleDemo() {}

  /**
   * Runs the demo until the process is stopped.
   *
   * @param args ignored
   * @throws Exception if the database or the console cannot start
   */
  public static void main(String[] args) throws Exception {
    JdbcConnectionPool ds =
        JdbcConnectionPool.create("jdbc:h2:mem:console-demo;DB_CLOSE_DELAY=-1", "sa", "");
    try (Connection c = ds.getConnection()) {
      OutboxSchema.create(c);
      ConsoleSchema.create(c);
    }
    OutboxRelay relay =
        OutboxRelay.builder(ds, new DemoServices())
            .name("console-demo")
            .pollInterval(Duration.ofMillis(200))
            .retryBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))
            .maxAttempts(3)
            .build();
    relay.start();
    placeOrders(ds, 40);

    String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random(12));
    Path users = Files.createTempFile("outboxkit-console-users", ".txt");
    users.toFile().deleteOnExit();
    Files.writeString(
        users,
        "demo:view,operate,payloads:"
            + StandaloneConsole.hashPassword(password.toCharArray())
            + "\n",
        StandardCharsets.UTF_8);
    int port = Integer.getInteger("console.port", 8090);
    StandaloneConsole console =
        StandaloneConsole.start(ds, users, new InetSocketAddress("127.0.0.1", port), null);
    System.out.printf(
        "%nOutboxKit console on http://127.0.0.1:%d/  (user demo, password %s)%n"
            + "Orders above 80 went DEAD at the CRM: replay them from Failures once you like;"
            + " billing is down, so its events wait. Ctrl+C stops the demo.%n",
        console.port(), password);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  console.close();
                  relay.close();
                  ds.dispose();
                }));
    Thread.currentThread().join();
  }

  private static void placeOrders(JdbcConnectionPool ds, int count) throws Exception {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      for (int i = 1; i <= count; i++) {
        int total = (i * 37) % 120;
        String destination = i % 5 == 0 ? "billing" : "crm";
        Outbox.append(
            c,
            OutboxEvent.builder("Order", "o-" + i, "OrderPlaced")
                .destination(destination)
                .tenant(i % 2 == 0 ? "shop-eu" : "shop-us")
                .payload("{\"order\":\"o-" + i + "\",\"total\":" + total + "}")
                .build());
      }
      c.commit();
    }
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    new SecureRandom().nextBytes(b);
    return b;
  }

  /** A CRM that refuses large orders and a billing service that is down. */
  private static final class DemoServices implements Transport {
    @Override
    public SendResult send(OutboxMessage message) {
      OutboxEvent e = message.event();
      if ("billing".equals(e.destination().orElse(""))) {
        return SendResult.unavailable("HTTP 503 from https://billing.example/events", "billing");
      }
      String payload = new String(e.payload(), StandardCharsets.UTF_8);
      int total = Integer.parseInt(payload.replaceAll(".*\"total\":(\\d+).*", "$1"));
      if (total > 80) {
        return SendResult.reject(
            "HTTP 422 from https://crm.example/orders/" + e.aggregateId() + ": over credit limit");
      }
      return SendResult.delivered();
    }
  }
}
