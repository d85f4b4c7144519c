package dev.outboxkit;

/**
 * Root of every exception OutboxKit throws. Unchecked, so callers decide where to handle it;
 * subclasses are named for what failed and carry the fields needed to act on it.
 */
public class OutboxException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what failed and, where possible, what to do about it
   */
  public OutboxException(String message) {
    super(message);
  }

  /**
   * @param message what failed and, where possible, what to do about it
   * @param cause the underlying failure, kept for diagnosis
   */
  public OutboxException(String message, Throwable cause) {
    super(message, cause);
  }
}
