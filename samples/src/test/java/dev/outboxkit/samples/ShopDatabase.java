package dev.outboxkit.samples;

import dev.outboxkit.console.ConsoleSchema;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Supplier;

/**
 * The database of the shop samples' contract tests (Jetty, Tomcat, EJB): a fresh one per test class
 * with the shop's tables and the outbox table, emptied and restocked before each test.
 */
public final class ShopDatabase {
  private ShopDatabase() {}

  /**
   * The extension to register on a {@code PER_CLASS} contract test.
   *
   * @param flavor the subclass's database product, asked before the first test
   */
  public static FreshDatabase fresh(Supplier<Flavor> flavor) {
    return FreshDatabase.of(flavor)
        .setUp(ShopDatabase::createTables)
        .beforeEachTest(
            "DELETE FROM orders",
            "DELETE FROM stock",
            "DELETE FROM outbox_event",
            "INSERT INTO stock (sku, available) VALUES ('tea', 100), ('kettle', 1)");
  }

  private static void createTables(TestDatabase fresh) throws SQLException {
    try (Connection c = fresh.connect();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE orders (id VARCHAR(36) PRIMARY KEY, sku VARCHAR(36) NOT NULL,"
              + " quantity INT NOT NULL)");
      s.execute("CREATE TABLE stock (sku VARCHAR(36) PRIMARY KEY, available INT NOT NULL)");
      OutboxSchema.create(c);
      ConsoleSchema.create(c);
    }
  }
}
