package dev.outboxkit.samples.ejb;

import java.io.IOException;
import javax.ejb.EJB;
import javax.ejb.EJBException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The EJB sample's web front, {@code POST /orders} with form fields {@code id}, {@code sku} and
 * {@code quantity}: calls {@link OrderService#placeOrder}, which runs in the container's
 * transaction. Answers 201 when the order is placed, 409 when the stock cannot cover it (the
 * container rolled back the order and its event), 400 for a malformed order.
 */
public class OrdersServlet extends HttpServlet {
  private static final long serialVersionUID = 1L;

  @EJB private transient OrderService orders;

  /** Creates the servlet; the container calls this. */
  public OrdersServlet() {}

  /** Places one order; see the class comment for the answers. */
  @Override
  protected void doPost(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    int quantity;
    try {
      quantity = Integer.parseInt(request.getParameter("quantity"));
    } catch (NumberFormatException e) {
      quantity = 0;
    }
    try {
      orders.placeOrder(request.getParameter("id"), request.getParameter("sku"), quantity);
    } catch (OutOfStockException e) {
      response.sendError(409, e.getMessage());
      return;
    } catch (EJBException e) {
      // A system exception, rolled back by the container: a malformed order, or a database fault.
      boolean malformed = e.getCause() instanceof IllegalArgumentException;
      // The id as the client sent it may hold line breaks: only plain characters reach the log.
      String id = String.valueOf(request.getParameter("id")).replaceAll("[^A-Za-z0-9-]", "?");
      log("order " + id + " rolled back", e);
      response.sendError(malformed ? 400 : 500, malformed ? e.getCause().getMessage() : "failed");
      return;
    }
    response.setStatus(201);
  }
}
