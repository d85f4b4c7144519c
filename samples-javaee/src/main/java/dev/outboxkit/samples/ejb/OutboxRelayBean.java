package dev.outboxkit.samples.ejb;

import dev.outboxkit.http.WebhookTransport;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxStorageException;
import java.net.URI;
import javax.annotation.PostConstruct;
import javax.annotation.PreDestroy;
import javax.annotation.Resource;
import javax.ejb.Schedule;
import javax.ejb.Singleton;
import javax.ejb.Startup;
import javax.ejb.TransactionAttribute;
import javax.ejb.TransactionAttributeType;
import javax.enterprise.concurrent.ManagedThreadFactory;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox as signed webhooks, driven by the container: built when the application
 * starts, run by the EJB timer service every second, closed when the application stops. It never
 * starts a thread of its own: {@link OutboxRelay#start()} is not called, the relay drains on the
 * timer's thread, and the few threads the library needs (the ones that bound each send by {@code
 * sendTimeout}, and the webhook transport's request threads) come from the container's {@link
 * ManagedThreadFactory}.
 *
 * <p>Resources and environment entries (set them in the deployment, outside the archive):
 *
 * <table>
 *   <caption>Resources</caption>
 *   <tr><th>name</th><th>meaning</th></tr>
 *   <tr><td>{@value #RELAY_DATA_SOURCE}</td><td>a <b>non-JTA</b> data source on the outbox's
 *       database (WildFly {@code <datasource jta="false">}, TomEE {@code JtaManaged=false}, a
 *       GlassFish/Payara non-transactional pool): the relay commits its own short
 *       transactions</td></tr>
 *   <tr><td>the default {@code ManagedThreadFactory}</td><td>{@code
 *       java:comp/DefaultManagedThreadFactory}</td></tr>
 *   <tr><td>{@value #WEBHOOK_URL}</td><td>env-entry: where events are POSTed (required)</td></tr>
 *   <tr><td>{@value #WEBHOOK_SECRET}</td><td>env-entry: the {@code whsec_...} signing secret
 *       (required)</td></tr>
 *   <tr><td>{@value #WEBHOOK_ALLOW_LOCAL}</td><td>env-entry: {@code true} allows plain {@code
 *       http} and private or loopback addresses</td></tr>
 * </table>
 *
 * <p>Every instance of the application may run this bean: relays share the table safely.
 */
@Singleton
@Startup
public class OutboxRelayBean {
  /** The relay's name, as in its log lines and lease owners: {@value}. */
  public static final String RELAY_NAME = "orders-ejb";

  /** Resource reference of the relay's non-JTA data source: {@value}. */
  public static final String RELAY_DATA_SOURCE = "jdbc/outboxRelay";

  /** Env-entry with the webhook endpoint's URL: {@value}. */
  public static final String WEBHOOK_URL = "outbox/webhook-url";

  /** Env-entry with the webhook signing secret: {@value}. */
  public static final String WEBHOOK_SECRET = "outbox/webhook-secret";

  /** Env-entry that allows plain http to private addresses when {@code true}: {@value}. */
  public static final String WEBHOOK_ALLOW_LOCAL = "outbox/webhook-allow-local";

  private static final Logger log = LoggerFactory.getLogger(OutboxRelayBean.class);

  @Resource(name = RELAY_DATA_SOURCE)
  private DataSource relayDataSource;

  @Resource private ManagedThreadFactory threadFactory;

  @Resource(name = WEBHOOK_URL)
  private String webhookUrl;

  @Resource(name = WEBHOOK_SECRET)
  private String webhookSecret;

  // Left false unless the deployment sets the entry.
  @Resource(name = WEBHOOK_ALLOW_LOCAL)
  private Boolean webhookAllowLocal = Boolean.FALSE;

  // A singleton with container-managed concurrency: the container serialises the calls below.
  private WebhookTransport transport;
  private OutboxRelay relay;

  /** Creates the bean; the container calls this. */
  public OutboxRelayBean() {}

  /** Builds the transport and the relay; starts nothing. */
  @PostConstruct
  void open() {
    if (webhookUrl == null || webhookSecret == null) {
      throw new IllegalStateException(
          "env-entries "
              + WEBHOOK_URL
              + " and "
              + WEBHOOK_SECRET
              + " must be set by the deployment");
    }
    WebhookTransport.Builder webhooks =
        WebhookTransport.builder(URI.create(webhookUrl), webhookSecret)
            .threadFactory(threadFactory);
    if (Boolean.TRUE.equals(webhookAllowLocal)) {
      webhooks.allowHttp().allowPrivateAddresses();
    }
    transport = webhooks.build();
    relay =
        OutboxRelay.builder(relayDataSource, transport)
            .name(RELAY_NAME)
            .threadFactory(threadFactory)
            .build();
  }

  /**
   * Publishes everything claimable now, on the timer's thread. Outside any JTA transaction
   * (NOT_SUPPORTED): the relay commits its own short claim and acknowledgement transactions, and
   * refuses to run inside a JTA transaction.
   */
  @Schedule(second = "*/1", minute = "*", hour = "*", persistent = false)
  @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
  public void drain() {
    try {
      relay.drain();
    } catch (OutboxStorageException e) {
      // The database is down or failing: nothing is lost, the next tick tries again.
      log.warn("[{}] outbox drain failed, retrying at the next tick: {}", RELAY_NAME, e.toString());
    }
  }

  /**
   * Closes the relay when the application stops: it waits (bounded) for the batch in flight, hands
   * back what it claimed but did not send, and leaves no thread behind.
   */
  @PreDestroy
  void close() {
    if (relay != null) {
      relay.close();
    }
    if (transport != null) {
      transport.close(); // the relay never closes the transport it was given
    }
  }
}
