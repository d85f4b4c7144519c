package dev.outboxkit.jms;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.activemq.broker.Broker;
import org.apache.activemq.broker.BrokerFilter;
import org.apache.activemq.broker.BrokerPlugin;
import org.apache.activemq.broker.ConnectionContext;
import org.apache.activemq.broker.ProducerBrokerExchange;
import org.apache.activemq.command.Message;
import org.apache.activemq.command.TransactionId;

/**
 * Broker-side faults for the tests, inside a real ActiveMQ broker: refuse messages carrying a
 * {@value #REFUSE_HEADER} header, refuse commits, or stall commits.
 */
final class FaultPlugin implements BrokerPlugin {
  /** Event header that makes the broker refuse the message (property {@code refuse_me}). */
  static final String REFUSE_HEADER = "refuse-me";

  /** Commits to refuse from now on (counted down). */
  final AtomicInteger refuseCommits = new AtomicInteger();

  /** Commits that reached the broker, refused or not. */
  final AtomicInteger commits = new AtomicInteger();

  /** How long each commit stalls before it proceeds; zero for none. */
  volatile Duration commitStall = Duration.ZERO;

  void reset() {
    refuseCommits.set(0);
    commits.set(0);
    commitStall = Duration.ZERO;
  }

  @Override
  public Broker installPlugin(Broker next) {
    return new BrokerFilter(next) {
      @Override
      public void send(ProducerBrokerExchange exchange, Message message) throws Exception {
        if (message.getProperty(JmsEvents.propertyName(REFUSE_HEADER)) != null) {
          throw new jakarta.jms.JMSException("refused by the test broker");
        }
        super.send(exchange, message);
      }

      @Override
      public void commitTransaction(ConnectionContext context, TransactionId xid, boolean onePhase)
          throws Exception {
        commits.incrementAndGet();
        Duration stall = commitStall;
        if (!stall.isZero()) {
          Thread.sleep(stall.toMillis());
        }
        if (refuseCommits.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
          throw new jakarta.jms.JMSException("commit refused by the test broker");
        }
        super.commitTransaction(context, xid, onePhase);
      }
    };
  }
}
