package dev.outboxkit.samples.ejb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.samples.ShopChecks;
import dev.outboxkit.samples.ShopDatabase;
import dev.outboxkit.samples.servlet.WebhookReceiver;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.FreshDatabase;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.ThreadCensus;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.stream.Collectors;
import javax.ejb.EJBException;
import javax.ejb.embeddable.EJBContainer;
import javax.enterprise.concurrent.ManageableThread;
import org.apache.openejb.jee.EjbJar;
import org.apache.openejb.jee.EnvEntry;
import org.apache.openejb.jee.SingletonBean;
import org.apache.openejb.jee.StatelessBean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The EJB sample deployed in a real embeddable EJB container (OpenEJB 8, Java EE 8): {@link
 * OrderService} places orders in container-managed transactions on a JTA data source, {@link
 * OutboxRelayBean} publishes them from its {@code @Schedule} method over a non-JTA data source on
 * the same database, with threads from the container's {@code ManagedThreadFactory}. Events go out
 * as signed webhooks to a real receiver. One subclass per database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class EjbSampleContractTest {
  /** Bound of the waits; generous for a loaded machine, never a timing under test. */
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  /** Threads others start for themselves: the container's, the JDK HTTP client's, the test's. */
  private static final String[] NOT_OURS = {
    "EjbTimerPool", // the container's timer service: the @Schedule method runs on these
    "OpenEJB-", // the timer service's Quartz scheduler
    "Default Stateless Container", // the stateless container's own
    "Default Singleton Container",
    "LogStreamAsync", // the container's logging
    "RetryTimer", // the container's transaction manager (Geronimo)
    "HttpClient-", // the JDK HttpClient's selector thread (JDK code, ends with its client)
    "ForkJoinPool.commonPool-worker-", // the JDK HttpClient's fallback once its pool is shut down
    "pool-", // the webhook receiver's request threads
    "test-", // the test kit's Hikari pool
    "mysql-cj-abandoned-connection-cleanup", // Connector/J's own
  };

  @RegisterExtension final FreshDatabase database = ShopDatabase.fresh(this::flavor);

  private TestDatabase db;
  private WebhookReceiver receiver;
  private EJBContainer container;
  private OrderService orders;
  private ThreadCensus census;

  protected abstract Flavor flavor();

  @BeforeEach
  void deploy() throws Exception {
    db = database.get();
    receiver = new WebhookReceiver(SECRET);
    census = ThreadCensus.take(NOT_OURS);

    // The deployment: the two beans, and the env-entries an operator sets outside the archive.
    EjbJar module = new EjbJar("orders-ejb");
    SingletonBean relay = new SingletonBean(OutboxRelayBean.class);
    relay
        .getEnvEntry()
        .add(env(OutboxRelayBean.WEBHOOK_URL, String.class, receiver.uri().toString()));
    relay.getEnvEntry().add(env(OutboxRelayBean.WEBHOOK_SECRET, String.class, SECRET));
    relay.getEnvEntry().add(env(OutboxRelayBean.WEBHOOK_ALLOW_LOCAL, Boolean.class, "true"));
    module.addEnterpriseBean(relay);
    module.addEnterpriseBean(new StatelessBean(OrderService.class));

    Properties p = new Properties();
    p.put(EJBContainer.APP_NAME, "shop");
    p.put(EJBContainer.MODULES, module);
    // The container's two data sources on one database, linked by name to the beans'
    // resource-refs jdbc/orders and jdbc/outboxRelay: a JTA one for the business transactions,
    // a non-JTA one for the relay.
    dataSource(p, "orders", true);
    dataSource(p, "outboxRelay", false);
    container = EJBContainer.createEJBContainer(p);
    orders =
        (OrderService) container.getContext().lookup("java:global/shop/orders-ejb/OrderService");
  }

  private static EnvEntry env(String name, Class<?> type, String value) {
    return new EnvEntry(name, type.getName(), value);
  }

  private void dataSource(Properties p, String id, boolean jtaManaged) {
    p.put(id, "new://Resource?type=DataSource");
    p.put(
        id + ".JdbcDriver",
        flavor() == Flavor.POSTGRES ? "org.postgresql.Driver" : "com.mysql.cj.jdbc.Driver");
    p.put(id + ".JdbcUrl", db.jdbcUrl());
    p.put(id + ".UserName", db.user() != null ? db.user() : urlParameter("user"));
    p.put(id + ".Password", db.password() != null ? db.password() : urlParameter("password"));
    p.put(id + ".JtaManaged", Boolean.toString(jtaManaged));
  }

  /** The URL's own credentials, so that the container's defaults do not replace them. */
  private String urlParameter(String name) {
    String url = db.jdbcUrl();
    int q = url.indexOf('?');
    if (q >= 0) {
      for (String pair : url.substring(q + 1).split("&")) {
        if (pair.startsWith(name + "=")) {
          return pair.substring(name.length() + 1);
        }
      }
    }
    return "";
  }

  /** Also after a test whose database or deployment never came: undoes what was done. */
  @AfterEach
  void undeploy() {
    try {
      if (container != null) {
        container.close();
      }
    } finally { // a failed close is reported, and the next test still gets a fresh receiver
      container = null;
      if (receiver != null) {
        receiver.close();
        receiver = null;
      }
    }
  }

  @Test
  void placed_orders_are_published_by_the_scheduled_relay() throws Exception {
    List<String> ids = List.of("o-1", "o-2", "o-3");
    for (String id : ids) {
      orders.placeOrder(id, "tea", 2);
    }

    ShopChecks.assertPublished(db, receiver, ids, PATIENCE);
    assertThat(count("SELECT available FROM stock WHERE sku = 'tea'")).isEqualTo(94);
  }

  @Test
  void a_rolled_back_order_leaves_neither_the_order_nor_its_event() throws Exception {
    assertThatThrownBy(() -> orders.placeOrder("o-big", "kettle", 2))
        .isInstanceOf(OutOfStockException.class);
    assertThatThrownBy(() -> orders.placeOrder("o-\"bad", "tea", 1))
        .isInstanceOf(EJBException.class);
    orders.placeOrder("o-small", "kettle", 1);

    ShopChecks.assertOnlyTheSmallKettleOrderCommitted(db, receiver, PATIENCE);
  }

  @Test
  void the_relay_runs_on_managed_threads_only_and_closing_the_container_leaves_none()
      throws Exception {
    orders.placeOrder("o-threads", "tea", 1);
    Await.until(
        () -> receiver.received.containsValue("o-threads"), PATIENCE, "the event delivered");

    List<Thread> started = libraryCandidates(census.startedSince());
    // Every thread started since deployment, the container's own aside, is a managed one, and
    // none is a thread the library would have made itself.
    assertThat(started)
        .isNotEmpty()
        .allMatch(t -> t instanceof ManageableThread, "is a ManageableThread")
        .noneMatch(t -> t.getName().startsWith("outboxkit-"));
    System.out.printf(
        "Thread census: OpenEJB/%s EJB sample, ManagedThreadFactory: %d threads started, all"
            + " managed %s%n",
        flavor(), started.size(), names(started));

    container.close();
    container = null;

    Await.until(
        () ->
            started.stream().noneMatch(Thread::isAlive)
                && census.startedSince().stream()
                    .noneMatch(t -> t.getName().startsWith("outboxkit-")),
        PATIENCE,
        "the relay's threads gone");
    System.out.printf(
        "Thread census: OpenEJB/%s EJB sample after container close: %d of them alive%n",
        flavor(), started.stream().filter(Thread::isAlive).count());
    assertThat(admin().count(EventStatus.IN_FLIGHT)).isZero();
  }

  /**
   * Threads started since the census, less the container's transaction manager's clock thread,
   * which has no name of its own (a plain {@code Thread-n}) and so is told by its class.
   */
  private static List<Thread> libraryCandidates(List<Thread> started) {
    return started.stream()
        .filter(t -> !t.getClass().getName().startsWith("org.apache.geronimo.transaction."))
        .collect(Collectors.toList());
  }

  private OutboxAdmin admin() {
    return OutboxAdmin.create(db.dataSource());
  }

  private long count(String sql) throws SQLException {
    return Sql.queryLong(db.dataSource(), sql);
  }

  private static String names(List<Thread> threads) {
    return threads.stream()
        .map(Thread::getName)
        .sorted()
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
