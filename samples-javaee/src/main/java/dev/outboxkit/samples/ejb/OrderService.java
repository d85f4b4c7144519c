package dev.outboxkit.samples.ejb;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.regex.Pattern;
import javax.annotation.Resource;
import javax.ejb.EJBException;
import javax.ejb.Stateless;
import javax.ejb.TransactionAttribute;
import javax.ejb.TransactionAttributeType;
import javax.sql.DataSource;

/**
 * Places orders in container-managed (JTA) transactions: the order row, the stock reservation and
 * the {@code OrderPlaced} event are written on a connection of the application's JTA data source,
 * so they commit or roll back together with the container's transaction. No {@code commit()}, no
 * {@code setAutoCommit} here: the container does that.
 *
 * <p>Resources: {@value #ORDERS_DATA_SOURCE}, the JTA ({@code <jta-data-source>}, {@code
 * JtaManaged=true}) data source of the business tables {@code orders(id, sku, quantity)}, {@code
 * stock(sku, available)} and the outbox table. {@link OutboxRelayBean} publishes the events through
 * a second, non-JTA data source on the same database.
 */
@Stateless
public class OrderService {
  /** Resource reference of the JTA data source: {@value}. */
  public static final String ORDERS_DATA_SOURCE = "jdbc/orders";

  // Ids and SKUs go into the JSON payload as they are, so only plain characters are accepted.
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9-]{1,36}");

  @Resource(name = ORDERS_DATA_SOURCE)
  private DataSource orders;

  /** Creates the bean; the container calls this. */
  public OrderService() {}

  /**
   * Places one order in the caller's transaction, or in a new one (REQUIRED).
   *
   * @param id the order id (letters, digits, '-')
   * @param sku the product (letters, digits, '-')
   * @param quantity at least 1
   * @throws OutOfStockException if the stock cannot cover it; the transaction is rolled back, and
   *     with it the order and its event
   * @throws IllegalArgumentException for a malformed order (a system exception: rolled back too)
   */
  @TransactionAttribute(TransactionAttributeType.REQUIRED)
  public void placeOrder(String id, String sku, int quantity) throws OutOfStockException {
    if (id == null
        || !NAME.matcher(id).matches()
        || sku == null
        || !NAME.matcher(sku).matches()
        || quantity < 1) {
      throw new IllegalArgumentException(
          "need id and sku (letters, digits, '-') and a positive quantity");
    }
    // The connection is enlisted in the container's transaction; closing it ends only our use.
    try (Connection c = orders.getConnection()) {
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO orders (id, sku, quantity) VALUES (?, ?, ?)")) {
        ps.setString(1, id);
        ps.setString(2, sku);
        ps.setInt(3, quantity);
        ps.executeUpdate();
      }
      // Same connection, same JTA transaction: the event exists if and only if the order does.
      // Application servers' JTA pools report auto-commit off on an enlisted connection, which is
      // what Outbox.append checks. A JTA driver that reports it on (Narayana's
      // TransactionalDriver) needs Outbox.writer().managedTransactions(true).build() instead.
      Outbox.append(
          c,
          OutboxEvent.builder("Order", id, "OrderPlaced")
              .payload(
                  String.format(
                      "{\"order\":\"%s\",\"sku\":\"%s\",\"quantity\":%d}", id, sku, quantity))
              .build());
      // Checked last on purpose: the rollback takes back the order row and the event written.
      if (!reserveStock(c, sku, quantity)) {
        throw new OutOfStockException(sku, quantity);
      }
    } catch (SQLException e) {
      // A system exception: the container rolls the transaction back.
      throw new EJBException("order " + id + " could not be stored", e);
    }
  }

  private static boolean reserveStock(Connection c, String sku, int quantity) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE stock SET available = available - ? WHERE sku = ? AND available >= ?")) {
      ps.setInt(1, quantity);
      ps.setString(2, sku);
      ps.setInt(3, quantity);
      return ps.executeUpdate() == 1;
    }
  }
}
