package dev.outboxkit.jms;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jms.internal.Classifier;
import dev.outboxkit.jms.internal.Classifier.Category;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.ResourceAllocationRuntimeException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/**
 * The failure table, without a broker. The JMS 2.0 unchecked exceptions are matched by name (the
 * main code stays loadable with a JMS 1.1 API), so these cases pin that the names are right.
 */
class ClassifierTest {

  @Test
  void jms2_unchecked_exceptions_are_classified_like_their_checked_twins() {
    assertThat(Classifier.classify(new IllegalStateRuntimeException("closed")))
        .isEqualTo(Category.CONNECTION);
    assertThat(Classifier.classify(new ResourceAllocationRuntimeException("full")))
        .isEqualTo(Category.BUSY);
    assertThat(Classifier.classify(new InvalidDestinationRuntimeException("no such queue")))
        .isEqualTo(Category.REJECT);
    assertThat(Classifier.classify(new MessageFormatRuntimeException("bad")))
        .isEqualTo(Category.REJECT);
    assertThat(Classifier.classify(new JMSRuntimeException("other"))).isEqualTo(Category.RETRY);
  }

  @Test
  void subclasses_and_causes_count_and_invalid_destinations_are_recognised_in_both_forms() {
    InvalidDestinationRuntimeException providers =
        new InvalidDestinationRuntimeException("no such queue") {
          private static final long serialVersionUID = 1L;
        };
    JMSRuntimeException wrapped = new JMSRuntimeException("send failed", "X", providers);
    assertThat(Classifier.classify(wrapped)).isEqualTo(Category.REJECT);
    assertThat(Classifier.isDestinationFailure(wrapped)).isTrue();
    assertThat(Classifier.isDestinationFailure(new InvalidDestinationException("no"))).isTrue();
    assertThat(Classifier.isDestinationFailure(new JMSException("other"))).isFalse();

    JMSException linked = new JMSException("lost");
    linked.setLinkedException(new ConnectException("refused"));
    assertThat(Classifier.classify(linked)).isEqualTo(Category.CONNECTION);
  }
}
