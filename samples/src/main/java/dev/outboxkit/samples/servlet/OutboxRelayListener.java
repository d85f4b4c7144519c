package dev.outboxkit.samples.servlet;

import dev.outboxkit.http.WebhookTransport;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.micrometer.OutboxMetrics;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import javax.naming.InitialContext;
import javax.naming.NamingException;
import javax.sql.DataSource;

/**
 * Runs the outbox relay for as long as the web app runs: builds and starts it when the container
 * deploys the app, closes it when the container undeploys or stops it. Declare it in {@code
 * WEB-INF/web.xml} (see the sample's {@code src/main/webapp/WEB-INF/web.xml}).
 *
 * <p>The relay publishes as signed webhooks; the endpoint and its secret come from context
 * parameters, which a deployment sets outside the war (a {@code <Parameter>} in Tomcat's {@code
 * context.xml}, a context init parameter in Jetty's context XML, ...):
 *
 * <table>
 *   <caption>Context parameters</caption>
 *   <tr><th>name</th><th>meaning</th></tr>
 *   <tr><td>{@value #DATA_SOURCE_PARAM}</td><td>JNDI name of the application's DataSource;
 *       default {@value #DEFAULT_DATA_SOURCE}</td></tr>
 *   <tr><td>{@value #WEBHOOK_URL_PARAM}</td><td>where events are POSTed (required)</td></tr>
 *   <tr><td>{@value #WEBHOOK_SECRET_PARAM}</td><td>the {@code whsec_...} signing secret
 *       (required)</td></tr>
 *   <tr><td>{@value #WEBHOOK_ALLOW_LOCAL_PARAM}</td><td>{@code true} to allow plain {@code http}
 *       and private or loopback addresses, for a receiver on the same machine or network</td></tr>
 *   <tr><td>{@value #SHUTDOWN_TIMEOUT_PARAM}</td><td>how long undeploying waits for the batch in
 *       flight, ISO-8601 ({@code PT10S})</td></tr>
 * </table>
 *
 * <p>The relay's meters ({@link OutboxMetrics}, with the backlog gauges) go to two registries
 * without any framework: a Prometheus registry, which {@link MetricsServlet} serves for scraping,
 * and a JMX registry, which shows them as MBeans in the {@code metrics} domain to JConsole,
 * VisualVM or the container's own JMX tooling. Both are closed with the app, so a redeploy leaves
 * no MBean behind.
 *
 * <p>Every instance of the app may run this listener: relays share the table safely.
 */
public final class OutboxRelayListener implements ServletContextListener {
  /** Context attribute under which the running {@link OutboxRelay} is published to servlets. */
  public static final String RELAY_ATTRIBUTE = OutboxRelay.class.getName();

  /**
   * Context attribute under which the Prometheus registry is published to {@link MetricsServlet}.
   */
  public static final String METRICS_ATTRIBUTE = PrometheusMeterRegistry.class.getName();

  /** The relay's name, as in its log lines, thread names and lease owners: {@value}. */
  public static final String RELAY_NAME = "orders-web";

  /** Context parameter naming the DataSource in JNDI: {@value}. */
  public static final String DATA_SOURCE_PARAM = "outbox.datasource";

  /** JNDI name of the DataSource unless {@value #DATA_SOURCE_PARAM} says otherwise: {@value}. */
  public static final String DEFAULT_DATA_SOURCE = "java:comp/env/jdbc/orders";

  /** Context parameter with the webhook endpoint's URL: {@value}. */
  public static final String WEBHOOK_URL_PARAM = "outbox.webhook.url";

  /** Context parameter with the webhook signing secret: {@value}. */
  public static final String WEBHOOK_SECRET_PARAM = "outbox.webhook.secret";

  /** Context parameter that allows plain http to private addresses when {@code true}: {@value}. */
  public static final String WEBHOOK_ALLOW_LOCAL_PARAM = "outbox.webhook.allow-local";

  /** Context parameter with the relay's shutdown timeout: {@value}. */
  public static final String SHUTDOWN_TIMEOUT_PARAM = "outbox.relay.shutdown-timeout";

  // The container makes one instance per declaration and calls it on one thread at a time.
  private WebhookTransport transport;
  private OutboxRelay relay;
  private PrometheusMeterRegistry prometheus;
  private JmxMeterRegistry jmx;
  private CompositeMeterRegistry meters;

  /** Creates the listener; the container calls this. */
  public OutboxRelayListener() {}

  /** Builds and starts the relay, and publishes it as the {@link #RELAY_ATTRIBUTE} attribute. */
  @Override
  public void contextInitialized(ServletContextEvent event) {
    ServletContext context = event.getServletContext();
    WebhookTransport.Builder webhooks =
        WebhookTransport.builder(
            URI.create(required(context, WEBHOOK_URL_PARAM)),
            required(context, WEBHOOK_SECRET_PARAM));
    if (Boolean.parseBoolean(context.getInitParameter(WEBHOOK_ALLOW_LOCAL_PARAM))) {
      webhooks.allowHttp().allowPrivateAddresses();
    }
    String shutdownTimeout = context.getInitParameter(SHUTDOWN_TIMEOUT_PARAM);
    transport = webhooks.build();
    DataSource dataSource = dataSource(context);
    prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    jmx = new JmxMeterRegistry(JmxConfig.DEFAULT, Clock.SYSTEM);
    meters = new CompositeMeterRegistry(Clock.SYSTEM, List.of(prometheus, jmx));
    OutboxMetrics metrics =
        OutboxMetrics.builder(meters)
            .tag("relay", RELAY_NAME)
            .admin(OutboxAdmin.create(dataSource))
            .build();
    OutboxRelay.Builder builder =
        OutboxRelay.builder(dataSource, transport).name(RELAY_NAME).listener(metrics);
    if (shutdownTimeout != null) {
      builder.shutdownTimeout(Duration.parse(shutdownTimeout));
    }
    relay = builder.build();
    relay.start();
    context.setAttribute(RELAY_ATTRIBUTE, relay);
    context.setAttribute(METRICS_ATTRIBUTE, prometheus);
    context.log(
        "outbox relay started, publishing to " + context.getInitParameter(WEBHOOK_URL_PARAM));
  }

  /**
   * Closes the relay before the container takes the DataSource away: it stops claiming, waits for
   * the batch in flight (bounded), and hands back what it claimed but did not send, so another
   * instance, or this app's next deployment, sends it at once instead of after the lease.
   */
  @Override
  public void contextDestroyed(ServletContextEvent event) {
    event.getServletContext().removeAttribute(RELAY_ATTRIBUTE);
    event.getServletContext().removeAttribute(METRICS_ATTRIBUTE);
    if (relay != null) {
      relay.close();
    }
    if (transport != null) {
      transport.close(); // the relay never closes the transport it was given
    }
    if (meters != null) {
      meters.close();
      jmx.close(); // unregisters its MBeans
      prometheus.close();
    }
    event.getServletContext().log("outbox relay stopped");
  }

  /**
   * Looks up the application's DataSource in JNDI, by the name in the {@value #DATA_SOURCE_PARAM}
   * context parameter or {@value #DEFAULT_DATA_SOURCE}. Call it on a thread of the web app: {@code
   * java:comp/env} is each web app's own naming context.
   *
   * @param context the web app
   * @return the DataSource the container binds
   * @throws IllegalStateException if nothing is bound under that name
   */
  public static DataSource dataSource(ServletContext context) {
    String name = context.getInitParameter(DATA_SOURCE_PARAM);
    if (name == null) {
      name = DEFAULT_DATA_SOURCE;
    }
    try {
      return (DataSource) new InitialContext().lookup(name);
    } catch (NamingException e) {
      throw new IllegalStateException(
          "no DataSource at JNDI name '"
              + name
              + "': declare it as a resource-ref in web.xml and bind it in the container, or set"
              + " the context parameter "
              + DATA_SOURCE_PARAM,
          e);
    }
  }

  private static String required(ServletContext context, String name) {
    String value = context.getInitParameter(name);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(
          "context parameter " + name + " is not set: set it in the container's context config");
    }
    return value;
  }
}
