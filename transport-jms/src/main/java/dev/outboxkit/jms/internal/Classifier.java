package dev.outboxkit.jms.internal;

import dev.outboxkit.Failures;
import jakarta.jms.IllegalStateException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.JMSException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.ResourceAllocationException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.regex.Pattern;

/**
 * Sorts a JMS failure into what the relay should do about it. The table is in {@link
 * dev.outboxkit.jms.JmsTransport}'s class comment; this is its single implementation.
 *
 * <p>Only the JMS API and the JDK are known here, so the checks are provider-independent: exception
 * types of the API, I/O exceptions in the cause chain (every network provider wraps its socket
 * failures), and, as a fallback, exception class names that say the connection failed or was closed
 * (ActiveMQ's {@code ConnectionFailedException} and {@code ConnectionClosedException}, for
 * instance).
 *
 * <p>JMS 1.1 is enough: the unchecked twins of the API's exceptions ({@code
 * IllegalStateRuntimeException} and the like) came with JMS 2.0, so they are matched by class name,
 * never named as types, which would fail to load with a JMS 1.1 API jar.
 */
public final class Classifier {

  /** What a failure means for the event and for the transport. */
  public enum Category {
    /** The connection is lost or unusable: discard it; the batch is not the events' fault. */
    CONNECTION,
    /** The provider is out of resources (memory, storage): transport-wide, keep the connection. */
    BUSY,
    /** The sending thread was interrupted (the relay gave up on the batch, or is stopping). */
    INTERRUPTED,
    /** The event can never be sent as it is: bad message content or destination. */
    REJECT,
    /** Anything else: may pass on another attempt. */
    RETRY
  }

  // The API's package, for the JMS 2.0 exception types matched by name.
  private static final String API_PACKAGE = JMSException.class.getPackageName() + ".";
  private static final String ILLEGAL_STATE_RUNTIME = API_PACKAGE + "IllegalStateRuntimeException";
  private static final String RESOURCE_ALLOCATION_RUNTIME =
      API_PACKAGE + "ResourceAllocationRuntimeException";
  private static final String INVALID_DESTINATION_RUNTIME =
      API_PACKAGE + "InvalidDestinationRuntimeException";
  private static final String MESSAGE_FORMAT_RUNTIME =
      API_PACKAGE + "MessageFormatRuntimeException";

  // "Send aborted due to thread interrupt." (ActiveMQ Classic, waiting for producer flow control):
  // a provider that reports an interrupt in words only, having cleared the flag.
  private static final Pattern THREAD_INTERRUPT = Pattern.compile("(?i)thread\\s+interrupt");

  // Secrets that could appear in a provider's message (a broker URL with credentials).
  private static final Pattern USER_INFO = Pattern.compile("://[^/@\\s]+@");
  private static final Pattern PASSWORD =
      Pattern.compile("(?i)(password|passwd|pwd|secret)=[^&\\s,;)]*");

  private Classifier() {}

  /**
   * Classifies a failure by its type and cause chain.
   *
   * @param failure as thrown by the provider
   * @return its category
   */
  public static Category classify(Throwable failure) {
    if (has(failure, InterruptedException.class)
        || has(failure, InterruptedIOException.class)
        || saysInterrupted(failure)
        || Thread.currentThread().isInterrupted()) {
      return Category.INTERRUPTED;
    }
    // Checked before the event-specific types: a closed session says nothing about the message.
    if (has(failure, IllegalStateException.class)
        || has(failure, ILLEGAL_STATE_RUNTIME)
        || has(failure, IOException.class)
        || namedAsConnectionFailure(failure)) {
      return Category.CONNECTION;
    }
    if (has(failure, ResourceAllocationException.class)
        || has(failure, RESOURCE_ALLOCATION_RUNTIME)) {
      return Category.BUSY;
    }
    if (has(failure, InvalidDestinationException.class)
        || has(failure, INVALID_DESTINATION_RUNTIME)
        || has(failure, MessageFormatException.class)
        || has(failure, MESSAGE_FORMAT_RUNTIME)) {
      return Category.REJECT;
    }
    return Category.RETRY;
  }

  /** True for an invalid-destination failure: every event for that destination would get it. */
  public static boolean isDestinationFailure(Throwable failure) {
    return has(failure, InvalidDestinationException.class)
        || has(failure, INVALID_DESTINATION_RUNTIME);
  }

  /**
   * A short, log-safe reason: the failure as {@link Failures#describe} gives it, with the linked
   * exception of a {@link JMSException} when it has no cause, and anything that looks like a
   * credential in a URL masked.
   */
  public static String describe(Throwable failure) {
    String text = Failures.describe(failure);
    if (failure instanceof JMSException
        && failure.getCause() == null
        && ((JMSException) failure).getLinkedException() != null) {
      text = text + " (" + Failures.describe(((JMSException) failure).getLinkedException()) + ")";
    }
    text = USER_INFO.matcher(text).replaceAll("://***@");
    text = PASSWORD.matcher(text).replaceAll("$1=***");
    return Failures.truncate(text);
  }

  /** A reason for the event's {@code last_error} or the outage log, by category. */
  public static String reason(Category category, Throwable failure) {
    String cause = describe(failure);
    switch (category) {
      case CONNECTION:
        return Failures.truncate("JMS connection lost: " + cause);
      case BUSY:
        return Failures.truncate("JMS provider out of resources: " + cause);
      case INTERRUPTED:
        return "not confirmed: interrupted while sending to the JMS provider";
      case REJECT:
        return Failures.truncate("refused by the JMS provider: " + cause);
      case RETRY:
      default:
        return cause;
    }
  }

  /**
   * True if the chain holds an exception named for an interrupt (Artemis's {@code
   * ActiveMQInterruptedException}, Kafka-style {@code InterruptException}) or whose message says
   * the thread was interrupted: some providers catch the {@code InterruptedException}, clear the
   * flag and throw a plain {@code JMSException} that says so only in words.
   */
  private static boolean saysInterrupted(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = next(t), depth++) {
      String message = t.getMessage();
      if (t.getClass().getSimpleName().contains("Interrupt")
          || (message != null && THREAD_INTERRUPT.matcher(message).find())) {
        return true;
      }
    }
    return false;
  }

  private static boolean namedAsConnectionFailure(Throwable failure) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = next(t), depth++) {
      String name = t.getClass().getSimpleName();
      if (name.contains("ConnectionFailed") || name.contains("ConnectionClosed")) {
        return true;
      }
    }
    return false;
  }

  private static boolean has(Throwable failure, Class<? extends Throwable> type) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = next(t), depth++) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }

  /** True if the chain holds an instance of the class of that name or of a subclass of it. */
  private static boolean has(Throwable failure, String className) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = next(t), depth++) {
      for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
        if (c.getName().equals(className)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The cause, or for a JMS exception without one, its linked exception (JMS 1.x style). */
  private static Throwable next(Throwable t) {
    if (t.getCause() != null) {
      return t.getCause();
    }
    return t instanceof JMSException ? ((JMSException) t).getLinkedException() : null;
  }
}
