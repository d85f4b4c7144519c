package dev.outboxkit.samples.servlet;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxRelay;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * {@code POST /orders} with form fields {@code id}, {@code sku} and {@code quantity}: places an
 * order and appends its {@code OrderPlaced} event in one JDBC transaction, on one connection from
 * the container's DataSource. Either the order, the stock reservation and the event all commit, or
 * none of them does.
 *
 * <p>Answers 201 with a {@code Location} when the order is placed, 409 when the stock cannot cover
 * it (everything rolled back, no event), 400 for a malformed request. It expects tables {@code
 * orders(id, sku, quantity)}, {@code stock(sku, available)} and the outbox table ({@link
 * dev.outboxkit.jdbc.OutboxSchema}).
 */
public final class PlaceOrderServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  // Ids and SKUs go into the JSON payload as they are, so only plain characters are accepted.
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9-]{1,36}");

  // Set once in init(); servlets are shared by all request threads.
  private transient DataSource dataSource;

  /** Creates the servlet; the container calls this. */
  public PlaceOrderServlet() {}

  /** Looks up the DataSource once, as {@link OutboxRelayListener#dataSource} does. */
  @Override
  public void init() throws ServletException {
    dataSource = OutboxRelayListener.dataSource(getServletContext());
  }

  /** Places one order; see the class comment for the answers. */
  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    String id = request.getParameter("id");
    String sku = request.getParameter("sku");
    int quantity;
    try {
      quantity = Integer.parseInt(request.getParameter("quantity"));
    } catch (NumberFormatException e) {
      quantity = 0;
    }
    if (id == null
        || !NAME.matcher(id).matches()
        || sku == null
        || !NAME.matcher(sku).matches()
        || quantity < 1) {
      response.sendError(400, "need id and sku (letters, digits, '-') and a positive quantity");
      return;
    }
    boolean placed;
    try {
      placed = placeOrder(id, sku, quantity);
    } catch (SQLException e) {
      log("order " + id + " failed; rolled back", e);
      response.sendError(500, "the order could not be stored");
      return;
    }
    if (!placed) {
      response.sendError(409, "not enough " + sku + " in stock");
      return;
    }
    // Committed: tell the relay of this web app to publish now rather than at its next poll.
    // Optional; without it the event still goes out, after at most the poll interval.
    OutboxRelay relay =
        (OutboxRelay) getServletContext().getAttribute(OutboxRelayListener.RELAY_ATTRIBUTE);
    if (relay != null) {
      relay.wakeUp();
    }
    response.setStatus(201);
    response.setHeader("Location", request.getRequestURI() + "/" + id);
  }

  /**
   * The business transaction. Returns false, having rolled everything back, when the stock cannot
   * cover the order.
   */
  private boolean placeOrder(String id, String sku, int quantity) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      // A pooled connection goes back to the pool as we found it: restore auto-commit.
      boolean autoCommit = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        try (PreparedStatement ps =
            c.prepareStatement("INSERT INTO orders (id, sku, quantity) VALUES (?, ?, ?)")) {
          ps.setString(1, id);
          ps.setString(2, sku);
          ps.setInt(3, quantity);
          ps.executeUpdate();
        }
        // Same connection, same transaction: the event exists if and only if the order does.
        Outbox.append(
            c,
            OutboxEvent.builder("Order", id, "OrderPlaced")
                .payload(
                    String.format(
                        "{\"order\":\"%s\",\"sku\":\"%s\",\"quantity\":%d}", id, sku, quantity))
                .build());
        // The business rule, checked last on purpose: when it fails, the rollback takes back the
        // order row and the event already written.
        if (!reserveStock(c, sku, quantity)) {
          c.rollback();
          return false;
        }
        c.commit();
        return true;
      } catch (SQLException | RuntimeException e) {
        try {
          c.rollback();
        } catch (SQLException rollbackFailed) {
          e.addSuppressed(rollbackFailed);
        }
        throw e;
      } finally {
        c.setAutoCommit(autoCommit);
      }
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
