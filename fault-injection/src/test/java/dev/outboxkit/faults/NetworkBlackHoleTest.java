package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.testing.RecordingTransport;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.StatementHook;
import dev.outboxkit.testkit.TcpProxy;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The network path between a relay and its database goes dead — no FIN, no RST: a dropped NAT
 * entry, a firewall failover, a paused VM — at one chosen moment of the protocol: right after the
 * claim statement ran, while the batch is being sent, or right after the acknowledgement ran. A
 * {@link TcpProxy} between that relay and the server stops forwarding both ways; a second relay
 * with a direct connection must then deliver everything, and the first relay's worker must give up
 * its connection after the statement timeout instead of sitting in a socket read for hours.
 *
 * <p>Without the server-side bounds the claim case holds the claimed rows' locks for as long as the
 * server keeps the dead session (hours with default keepalive): the claim never committed, so the
 * rows still read PENDING, are skipped as locked, and no lease ever expires. With them, the server
 * ends the idle transaction after {@code statementTimeout} and the rows are free again.
 */
class NetworkBlackHoleTest extends FaultTest {
  private static final int EVENTS = 1_040;
  private static final int AGGREGATES = 20;
  private static final Duration STATEMENT_TIMEOUT = Duration.ofSeconds(3);
  private static final Pattern HOST_PORT = Pattern.compile("//([^/:?]+):(\\d+)");

  @Test
  void a_claim_whose_network_dies_releases_its_rows_within_the_statement_timeout()
      throws Exception {
    // A lease far longer than the test: only the server-side bound can free these rows in time.
    Run run = run("claim", Duration.ofSeconds(60), "SKIP LOCKED", false);

    assertThat(run.recovery)
        .as("rows free within the statement timeout (plus the re-drain), not the 60 s lease")
        .isLessThan(STATEMENT_TIMEOUT.plusSeconds(25));
    assertThat(run.duplicates).as("the black-holed relay sent nothing").isZero();
  }

  @Test
  void a_batch_whose_network_dies_mid_send_is_delivered_again_after_its_lease() throws Exception {
    Run run = run("mid-send", Duration.ofSeconds(10), null, true);

    assertThat(run.recovery).isLessThan(Duration.ofSeconds(40));
    assertThat(run.duplicates)
        .as("at most the batch the black-holed relay delivered without recording it")
        .isLessThanOrEqualTo(run.holedDelivered);
  }

  @Test
  void an_acknowledgement_whose_network_dies_is_delivered_again_after_its_lease() throws Exception {
    Run run = run("ack", Duration.ofSeconds(10), "'PUBLISHED'", false);

    assertThat(run.recovery).isLessThan(Duration.ofSeconds(40));
    assertThat(run.duplicates)
        .as("at most the batch whose acknowledgement never committed")
        .isLessThanOrEqualTo(run.holedDelivered);
  }

  /** What one scenario measured. */
  private static final class Run {
    Duration recovery;
    long duplicates;
    long holedDelivered;
  }

  /**
   * Appends the events, starts the relay behind the proxy, black-holes the proxy at the moment
   * given (after a statement containing {@code marker}, or when its transport is first called),
   * starts the direct relay, and waits until everything is published.
   */
  private Run run(String scenario, Duration lease, String marker, boolean duringSend)
      throws Exception {
    String type = unique("Hole");
    List<OutboxEvent> events = append(EVENTS, EVENTS, i -> event(type, i, AGGREGATES));
    TcpProxy proxy = closeLater(proxyTo(coordinates().url));
    CountDownLatch holed = new CountDownLatch(1);
    AtomicBoolean armed = new AtomicBoolean(true);
    Runnable blackHole =
        () -> {
          if (armed.getAndSet(false)) {
            proxy.blackHole();
            holed.countDown();
          }
        };

    RecordingTransport broker = new RecordingTransport();
    AtomicLong holedDelivered = new AtomicLong();
    Transport holedTransport =
        new Transport() {
          @Override
          public SendResult send(OutboxMessage m) {
            return sendBatch(List.of(m)).get(0);
          }

          @Override
          public List<SendResult> sendBatch(List<OutboxMessage> batch) {
            if (duringSend) {
              blackHole.run(); // the path dies while the broker takes the batch
            }
            List<SendResult> results = broker.sendBatch(batch);
            holedDelivered.addAndGet(results.stream().filter(SendResult::isDelivered).count());
            return results;
          }
        };
    HikariDataSource holedPool = closeLater(pool("holed", proxiedUrl(coordinates().url, proxy)));
    DataSource holedDs =
        marker == null ? holedPool : StatementHook.after(holedPool, marker, blackHole);
    long logMark = TestLog.mark();
    OutboxRelay holedRelay =
        startRelay(
            holedDs, holedTransport, "holed", lease, b -> b.shutdownTimeout(Duration.ofSeconds(2)));
    assertThat(holed.await(30, TimeUnit.SECONDS)).as("the fault struck").isTrue();
    long struck = System.nanoTime();

    HikariDataSource directPool = closeLater(pool("direct", coordinates().url));
    OutboxRelay direct =
        startRelay(
            directPool, broker, "direct", lease, b -> b.pollInterval(Duration.ofMillis(100)));

    // The stalled worker gives up its socket read after the network timeout and says so.
    Await.until(
        () ->
            !TestLog.linesSince(logMark, "[holed]", "database error").isEmpty()
                || !TestLog.linesSince(logMark, "[holed]", "recording the outcome").isEmpty(),
        STATEMENT_TIMEOUT.plusSeconds(30),
        () -> "the black-holed relay never gave up its dead connection");
    long gaveUpAfter = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - struck);
    assertThat(gaveUpAfter)
        .as("ms until the stalled relay gave up (network timeout: statementTimeout + 1 s)")
        .isLessThan(STATEMENT_TIMEOUT.plusSeconds(15).toMillis());
    awaitPublished(EVENTS, Duration.ofSeconds(90));
    Duration recovery = Duration.ofNanos(System.nanoTime() - struck);

    Map<String, Integer> copies = new HashMap<>();
    for (OutboxEvent e : broker.deliveredEvents()) {
      copies.merge(e.id().toString(), 1, Integer::sum);
    }
    long lost = events.stream().filter(e -> !copies.containsKey(e.id().toString())).count();
    long delivered = broker.deliveredEvents().size();
    Run run = new Run();
    run.recovery = recovery;
    run.duplicates = delivered - copies.size();
    run.holedDelivered = holedDelivered.get();
    assertThat(lost).as("events never delivered").isZero();
    assertThat(statuses())
        .containsEntry(EventStatus.DEAD, 0L)
        .containsEntry(EventStatus.PENDING, 0L)
        .containsEntry(EventStatus.IN_FLIGHT, 0L);
    new FaultReport(
            "black hole: " + scenario,
            database(),
            EVENTS,
            copies.size(),
            run.duplicates,
            count(EventStatus.DEAD),
            lost,
            recovery.toMillis() / 1000.0,
            "all delivered "
                + recovery.toMillis()
                + " ms after the path died (lease "
                + lease.toSeconds()
                + " s, statementTimeout "
                + STATEMENT_TIMEOUT.toSeconds()
                + " s); the stalled relay had delivered "
                + run.holedDelivered
                + " and gave up its dead connection after "
                + gaveUpAfter
                + " ms")
        .write();
    // Connections through the dead path go; the path then heals, so everything closes promptly.
    proxy.cutAll();
    proxy.resume();
    return run;
  }

  /**
   * Starts a relay with the statement timeout under test, a send timeout of 3 s and {@code more},
   * closed after the test.
   */
  private OutboxRelay startRelay(
      DataSource ds,
      Transport transport,
      String name,
      Duration lease,
      UnaryOperator<OutboxRelay.Builder> more) {
    OutboxRelay relay =
        closeLater(
            more.apply(
                    OutboxRelay.builder(ds, transport)
                        .name(name)
                        .leaseDuration(lease)
                        .sendTimeout(Duration.ofSeconds(3))
                        .statementTimeout(STATEMENT_TIMEOUT))
                .build());
    relay.start();
    return relay;
  }

  private static TcpProxy proxyTo(String url) throws Exception {
    Matcher m = HOST_PORT.matcher(url);
    assertThat(m.find()).as("host and port in %s", url).isTrue();
    return TcpProxy.start(m.group(1), Integer.parseInt(m.group(2)));
  }

  private static String proxiedUrl(String url, TcpProxy proxy) {
    return HOST_PORT.matcher(url).replaceFirst("//" + proxy.host() + ":" + proxy.port());
  }

  private HikariDataSource pool(String name, String url) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername(coordinates().user);
    config.setPassword(coordinates().password);
    config.setPoolName(name);
    config.setMaximumPoolSize(3);
    config.setMinimumIdle(0);
    // A new connection through the dead path hangs in its handshake: give up on it in seconds.
    config.setConnectionTimeout(3_000);
    config.setValidationTimeout(1_000);
    config.setInitializationFailTimeout(-1);
    return new HikariDataSource(config);
  }
}
