package dev.outboxkit.samples.ejb;

import javax.ejb.ApplicationException;

/**
 * The stock cannot cover an order. An application exception with {@code rollback = true}: the
 * caller gets it as it is, and the container rolls back the transaction, so the order row and its
 * event, both already written, are gone.
 */
@ApplicationException(rollback = true)
public class OutOfStockException extends Exception {
  private static final long serialVersionUID = 1L;

  /**
   * @param sku the product
   * @param quantity how many were asked for
   */
  public OutOfStockException(String sku, int quantity) {
    super("not enough " + sku + " in stock for " + quantity);
  }
}
