package dev.outboxkit.kafka.internal;

import dev.outboxkit.Failures;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.errors.UnsupportedVersionException;

/**
 * Sorts a Kafka failure into what the relay should do about it. The table is in {@link
 * dev.outboxkit.kafka.KafkaTransport}'s class comment; this is its single implementation.
 */
public final class Classifier {

  /** What a failure means for the event and for the transport. */
  public enum Category {
    /** The event can never be sent as it is (too large, bad topic, serialization). */
    REJECT,
    /**
     * Kafka refused the producer itself: authentication (SASL, SSL) failed, or the principal lacks
     * a cluster or transactional-id permission. Transport-wide, so every event would fail alike: a
     * configuration problem, reported as unavailable so that no event is charged or quarantined
     * while it lasts, and logged at ERROR once per burst.
     */
    CONFIGURATION,
    /**
     * The principal may not write to this event's topic: one topic's permission, not the whole
     * transport's. That topic's outage (unavailable, scoped to the topic), logged at ERROR as a
     * configuration problem.
     */
    REJECT_SECURITY,
    /**
     * The topic does not exist and is not being created: that topic's outage (unavailable, scoped
     * to the topic), and a WARN for the operator.
     */
    MISSING_TOPIC,
    /**
     * The broker did not answer in time or the connection broke: retry, or unavailable when the
     * whole batch failed this way and the producer has no connection to any broker.
     */
    CONNECTIVITY,
    /** The producer itself is broken (closed, fenced, fatal state): recreate an owned one. */
    PRODUCER_FATAL,
    /** The sending thread was interrupted: not the event's fault. */
    INTERRUPTED,
    /** Anything else that may pass on another attempt. */
    RETRY
  }

  private Classifier() {}

  /**
   * Classifies a failure.
   *
   * @param failure as thrown by {@code send} or passed to the send callback
   * @return its category
   */
  public static Category classify(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof InterruptException || t instanceof InterruptedException) {
      return Category.INTERRUPTED;
    }
    if (has(t, AuthenticationException.class)
        || has(t, ClusterAuthorizationException.class)
        || has(t, TransactionalIdAuthorizationException.class)) {
      return Category.CONFIGURATION;
    }
    if (has(t, AuthorizationException.class)) {
      // TopicAuthorizationException, in practice: other topics of the same transport may work.
      return Category.REJECT_SECURITY;
    }
    if (has(t, RecordTooLargeException.class)
        || has(t, RecordBatchTooLargeException.class)
        || has(t, SerializationException.class)
        || has(t, InvalidTopicException.class)
        || has(t, InvalidRecordException.class)
        || has(t, UnsupportedForMessageFormatException.class)) {
      return Category.REJECT;
    }
    if (isProducerFatal(t)) {
      return Category.PRODUCER_FATAL;
    }
    if (has(t, UnknownTopicOrPartitionException.class)) {
      // Thrown as the cause of "Topic X not present in metadata after N ms" when the broker
      // answered that the topic does not exist (auto-create disabled): the broker is reachable.
      return Category.MISSING_TOPIC;
    }
    if (has(t, TimeoutException.class)
        || has(t, NetworkException.class)
        || has(t, DisconnectException.class)) {
      return Category.CONNECTIVITY;
    }
    return Category.RETRY;
  }

  /**
   * True when the producer that raised this failure cannot be used again: it was closed, fenced by
   * a newer instance with the same {@code transactional.id}, or moved to its fatal error state.
   * Also true for the authorization failures Kafka treats as fatal to the producer.
   */
  public static boolean breaksProducer(Throwable failure) {
    Throwable t = unwrap(failure);
    return isProducerFatal(t)
        || has(t, ClusterAuthorizationException.class)
        || has(t, TransactionalIdAuthorizationException.class);
  }

  /** A short reason for the event's {@code last_error}, by category. */
  public static String reason(Category category, Throwable failure) {
    String cause = Failures.describe(unwrap(failure));
    switch (category) {
      case REJECT:
        return Failures.truncate("refused by Kafka: " + cause);
      case CONFIGURATION:
        return Failures.truncate(
            "Kafka refused the transport's credentials or cluster permissions (configuration"
                + " problem; events wait, no attempt charged): "
                + cause);
      case REJECT_SECURITY:
        return Failures.truncate(
            "Kafka refused permission for the topic (configuration problem): " + cause);
      case MISSING_TOPIC:
        return Failures.truncate(
            "topic does not exist and the broker does not create it"
                + " (auto.create.topics.enable=false?); create the topic: "
                + cause);
      case PRODUCER_FATAL:
        return Failures.truncate("Kafka producer failed: " + cause);
      case INTERRUPTED:
        return "not confirmed: interrupted while sending to Kafka";
      case CONNECTIVITY:
      case RETRY:
      default:
        return cause;
    }
  }

  private static boolean isProducerFatal(Throwable t) {
    if (has(t, ProducerFencedException.class)
        || has(t, InvalidProducerEpochException.class)
        || has(t, OutOfOrderSequenceException.class)
        || has(t, InvalidPidMappingException.class)
        || has(t, FencedInstanceIdException.class)
        || has(t, UnsupportedVersionException.class)
        || t instanceof IllegalStateException) {
      return true;
    }
    // A KafkaException that is not an ApiException comes from the client itself, not from a
    // broker answer: "Producer closed while send in progress", "Cannot execute transactional
    // method because we are in an error state", "Producer is closed forcefully".
    return t.getClass() == KafkaException.class;
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof ExecutionException || t instanceof CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static boolean has(Throwable failure, Class<? extends Throwable> type) {
    int depth = 0;
    for (Throwable t = failure; t != null && depth < 10; t = t.getCause(), depth++) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
