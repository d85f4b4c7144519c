package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.RecordingListener;
import dev.outboxkit.jdbc.TransportRelayTest;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Ports;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.http.HttpReceiver;
import dev.outboxkit.testkit.http.HttpReceiver.Reply;
import dev.outboxkit.testkit.http.HttpReceiver.Request;
import dev.outboxkit.testkit.logging.LogCapture;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay end to end with signed webhooks: events appended in business transactions on a real
 * database, published by two started {@link OutboxRelay}s through one {@link WebhookTransport} to a
 * real HTTP server on 127.0.0.1 that checks every request with {@link WebhookVerifier} (401 when it
 * fails) and injects faults. One subclass per database.
 */
abstract class WebhookRelayContractTest extends TransportRelayTest {
  private static final Logger log = LoggerFactory.getLogger(WebhookRelayContractTest.class);

  private static final int ORDERS = 200;
  private static final int EVENTS_PER_TRANSACTION = 5;
  private static final int TRANSACTIONS_PER_ORDER = 2;
  private static final int EVENTS_PER_ORDER = EVENTS_PER_TRANSACTION * TRANSACTIONS_PER_ORDER;
  private static final int EVENTS = ORDERS * EVENTS_PER_ORDER;

  /** 5 %: answered 503 on their first request, not processed. */
  private static final int REFUSED_FIRST = EVENTS / 20;

  /** 2 %: processed on their first request, then answered 500, as if the answer got lost. */
  private static final int LOST_ANSWER = EVENTS / 50;

  private static final Pattern BODY = Pattern.compile("\\{\"order\":\"([^\"]+)\",\"n\":(\\d+)}");

  WebhookRelayContractTest() {
    super(
        "shop_order_step",
        "order_id VARCHAR(64) NOT NULL, step INT NOT NULL, PRIMARY KEY (order_id, step)");
  }

  @Test
  void relays_deliver_every_event_verified_and_in_aggregate_order_when_receiver_fails_first_tries()
      throws Exception {
    Shop shop = new Shop(faultPlan(new Random(10)));
    HttpReceiver receiver =
        closeAfterTest(VerifyingReceiver.start(WebhookVerifier.of(SECRET)).respond(shop::handle));
    WebhookTransport transport =
        WebhookTransport.builder(receiver.uri("/hooks"), SECRET)
            .name("shop")
            .allowHttp()
            .allowPrivateAddresses() // the receiver is on 127.0.0.1
            // A batch whose every request met a 5xx opens the endpoint's breaker. With thousands of
            // events in flight that takes the rare small batch (one or two heads of orders just
            // committed) whose only events drew an injected fault; the default 30 s would then idle
            // both relays (they share this transport) for no reason the test cares about.
            .circuitOpenDuration(Duration.ofMillis(100))
            .build();
    closeAfterTest(transport);
    RecordingListener counters = new RecordingListener();
    startRelay("r1", transport, counters);
    startRelay("r2", transport, counters);

    // Committed while both relays already run, as in a live service.
    List<OutboxEvent> events = placeOrders();
    awaitCount(EventStatus.PUBLISHED, EVENTS, Duration.ofSeconds(120));
    closeRelays();

    assertThat(count(EventStatus.DEAD)).isZero();
    assertThat(counters.dead.get()).isZero();
    assertThat(Sql.queryLong(ds, "SELECT COUNT(*) FROM shop_order_step"))
        .isEqualTo((long) ORDERS * TRANSACTIONS_PER_ORDER);

    List<Request> requests = receiver.requests();
    assertThat(requests)
        .as("requests whose signature the receiver refused")
        .filteredOn(r -> r.refusal() != null)
        .isEmpty();

    // Every attempt carries the event's id as webhook-id, the retries the same as the first try.
    Map<String, OutboxEvent> byKey = new HashMap<>();
    events.forEach(e -> byKey.put(key(e), e));
    Map<String, List<String>> webhookIds = new LinkedHashMap<>();
    for (Request r : requests) {
      String key = key(r);
      assertThat(r.header(WebhookHeaders.AGGREGATE_ID)).isEqualTo(key.split("#")[0]);
      assertThat(WebhookHeaders.aggregateVersion(r::header))
          .isEqualTo(byKey.get(key).aggregateVersion());
      webhookIds.computeIfAbsent(key, k -> new ArrayList<>()).add(r.header(WebhookHeaders.ID));
    }
    assertThat(webhookIds.keySet()).as("every event received").isEqualTo(byKey.keySet());
    webhookIds.forEach(
        (key, ids) ->
            assertThat(ids)
                .as("webhook-id of every attempt of %s", key)
                .containsOnly(byKey.get(key).id().toString()));

    // Only the planned faults cost a second request: no unplanned duplicate, no extra attempt.
    Map<String, Integer> expectedRequests = new TreeMap<>();
    byKey.keySet().forEach(k -> expectedRequests.put(k, shop.plan.containsKey(k) ? 2 : 1));
    assertThat(new TreeMap<>(counts(webhookIds))).isEqualTo(expectedRequests);
    assertThat(requests).hasSize(EVENTS + REFUSED_FIRST + LOST_ANSWER);

    // Processed twice: exactly the events whose first answer was lost.
    Map<String, Integer> processed = shop.processedCounts();
    Set<String> duplicates =
        processed.entrySet().stream()
            .filter(e -> e.getValue() > 1)
            .map(Map.Entry::getKey)
            .collect(Collectors.toSet());
    assertThat(processed.keySet()).isEqualTo(byKey.keySet());
    assertThat(duplicates).isEqualTo(shop.keysWith(Fault.LOSE_ANSWER));
    assertThat(processed.values()).allMatch(n -> n <= 2);

    // Ordered mode: each order's events were first processed in append order.
    List<Integer> appendOrder = IntStream.range(0, EVENTS_PER_ORDER).boxed().toList();
    Map<String, List<Integer>> firstProcessed = shop.firstProcessingOrder();
    assertThat(firstProcessed).hasSize(ORDERS);
    firstProcessed.forEach(
        (order, ns) -> assertThat(ns).as("processing order of %s", order).isEqualTo(appendOrder));

    log.info(
        "[{}] {} events over {} requests: {} answered 503 first, {} lost answers (processed"
            + " twice); relays reported {} charged retries, {} transport outages (breaker),"
            + " {} recoveries",
        flavor(),
        EVENTS,
        requests.size(),
        shop.keysWith(Fault.REFUSE_FIRST).size(),
        duplicates.size(),
        counters.retried.get(),
        counters.unavailable.get(),
        counters.recovered.get());
  }

  @Test
  void one_tenants_dead_endpoint_never_holds_up_another_tenants_events() throws Exception {
    HttpReceiver healthy = closeAfterTest(VerifyingReceiver.start(WebhookVerifier.of(SECRET)));
    URI deadEndpoint = URI.create("http://127.0.0.1:" + Ports.unused() + "/hooks"); // refuses
    WebhookTransport transport =
        WebhookTransport.builder(
                e ->
                    WebhookEndpoint.of(
                        e.aggregateType().equals("TenantA") ? deadEndpoint : healthy.uri("/hooks"),
                        SECRET))
            .name("tenants")
            .allowHttp()
            .allowPrivateAddresses()
            .build();
    closeAfterTest(transport);
    // The default retry and outage backoff, as the multi-tenant user of the issue had them: were
    // the dead endpoint an outage of the whole transport, its event would be the probe again and
    // again while the pauses grow to 30 s, and tenant B would wait for minutes.
    start(
        OutboxRelay.builder(newPool(2), transport)
            .name("tenants")
            .pollInterval(Duration.ofMillis(50)));

    appendTenant("TenantA", 1);
    Await.until(
        () ->
            queryLongQuietly("SELECT COUNT(*) FROM outbox_event WHERE last_error IS NOT NULL") == 1,
        Duration.ofSeconds(20),
        () -> "tenant A's event met its dead endpoint");
    long appended = System.nanoTime();
    appendTenant("TenantB", 20);
    // Wait for the acknowledgements, not the requests: the receiver holds a request before the
    // relay has committed its outcome.
    awaitCount(EventStatus.PUBLISHED, 20, Duration.ofSeconds(10));
    Duration took = Duration.ofNanos(System.nanoTime() - appended);

    assertThat(took)
        .as("tenant B's events were not held up by tenant A's dead endpoint")
        .isLessThan(Duration.ofSeconds(5));
    assertThat(count(EventStatus.PUBLISHED)).isEqualTo(20);
    assertThat(healthy.requests()).as("tenant B's requests").hasSizeGreaterThanOrEqualTo(20);
    // Between its holds the relay claims it again to probe the endpoint: IN_FLIGHT for a moment.
    assertThat(countWhere("aggregate_type = 'TenantA' AND status IN ('PENDING', 'IN_FLIGHT')"))
        .as("tenant A's event waits")
        .isEqualTo(1);
    assertThat(maxAttempts()).as("nothing charged").isZero();
    assertThat(count(EventStatus.DEAD)).isZero();
    log.info(
        "[{}] tenant B's 20 events published {} ms after append, tenant A's endpoint refusing",
        flavor(),
        took.toMillis());
  }

  /**
   * A receiver whose host name resolves to a private address while the transport has no {@code
   * allowPrivateAddresses()}: a configuration mistake, or a DNS answer that will change, never the
   * events' fault. They wait through round after round, uncharged — with {@code maxAttempts(1)},
   * where one charged attempt would send them DEAD — with one ERROR line for the whole outage, and
   * are delivered once the host resolves to an allowed address.
   */
  @Test
  void events_for_a_host_resolving_to_a_private_address_wait_uncharged_until_it_is_allowed()
      throws Exception {
    HttpReceiver receiver = closeAfterTest(VerifyingReceiver.start(WebhookVerifier.of(SECRET)));
    // The address check asks this resolver, whose answer the test changes: loopback, then a public
    // address. The HTTP client connects on its own, to localhost (the hosts file: 127.0.0.1).
    AtomicReference<byte[]> answer = new AtomicReference<>(new byte[] {127, 0, 0, 1});
    AtomicInteger checks = new AtomicInteger();
    AddressResolver resolver =
        host -> {
          checks.incrementAndGet();
          return List.of(InetAddress.getByAddress(host, answer.get())); // no lookup
        };
    WebhookEndpoint endpoint =
        WebhookEndpoint.of(
            URI.create("http://localhost:" + receiver.uri("/").getPort() + "/hooks"), SECRET);
    // A router of the application's own: its endpoints are not known at build, so checked per
    // batch.
    WebhookTransport transport =
        WebhookTransport.builder(e -> endpoint)
            .name("private-host")
            .allowHttp()
            .resolver(resolver)
            .build();
    closeAfterTest(transport);
    OutboxRelay relay =
        closeAfterTest(
            OutboxRelay.builder(newPool(2), transport)
                .name("private-host")
                .maxAttempts(1)
                .outageBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
                .build());

    try (LogCapture capture = LogCapture.start()) {
      appendTenant("TenantA", 3);
      appendTenant("TenantB", 2);
      // Driven on this thread, so that between rounds nothing is IN_FLIGHT.
      assertThat(relay.runOnce()).isEqualTo(5);
      Await.until(
          () -> relay.runOnce() >= 0 && checks.get() >= 4,
          Duration.ofSeconds(30),
          () -> "four rounds that met the refused address; " + checks.get() + " so far");

      assertThat(count(EventStatus.PENDING)).as("held, not DEAD").isEqualTo(5);
      assertThat(maxAttempts()).as("nothing charged").isZero();
      assertThat(receiver.requests()).isEmpty();
      assertThat(
              capture.lines().stream()
                  .filter(l -> l.level().equals("ERROR"))
                  .map(LogCapture.Line::text)
                  .collect(Collectors.toList()))
          .singleElement()
          .asString()
          .contains("http://localhost:" + receiver.uri("/").getPort() + "/hooks")
          .contains("loopback address 127.0.0.1")
          .contains("allowPrivateAddresses()");

      answer.set(new byte[] {93, (byte) 184, (byte) 216, 34});
      relay.drainUntilDone(Duration.ofSeconds(30));

      assertThat(count(EventStatus.PUBLISHED)).isEqualTo(5);
      assertThat(receiver.requests()).hasSize(5).allMatch(r -> r.refusal() == null);
    }
  }

  @ParameterizedTest(name = "HTTP {0} for 2 s")
  @ValueSource(ints = {401, 403, 404})
  void an_endpoint_refusing_for_a_while_loses_nothing_and_holds_up_no_other(int status)
      throws Exception {
    // The 2 s start at the first request, so that a slow start cannot use them up unseen.
    AtomicLong refuseUntil = new AtomicLong();
    HttpReceiver flaky =
        VerifyingReceiver.start(WebhookVerifier.of(SECRET))
            .respond(
                r -> {
                  refuseUntil.compareAndSet(0, System.nanoTime() + TimeUnit.SECONDS.toNanos(2));
                  return System.nanoTime() - refuseUntil.get() < 0
                      ? Reply.status(status)
                      : Reply.status(204);
                });
    HttpReceiver healthy = VerifyingReceiver.start(WebhookVerifier.of(SECRET));
    WebhookTransport transport =
        tenants(flaky, healthy)
            .name("flaky-" + status)
            .circuitOpenDuration(Duration.ofMillis(300))
            .build();
    closeAfterTest(transport);
    start(
        OutboxRelay.builder(newPool(2), transport)
            .name("flaky-" + status)
            .maxAttempts(2)
            .pollInterval(Duration.ofMillis(50))
            .outageBackoff(Duration.ofMillis(200), Duration.ofSeconds(1)));

    appendTenant("TenantA", 10);
    appendTenant("TenantB", 10);
    Await.until(
        () -> healthy.requests().size() >= 10,
        Duration.ofSeconds(30),
        () -> "the healthy endpoint's events while the other answers " + status);
    awaitCount(EventStatus.PUBLISHED, 20, Duration.ofSeconds(30));

    assertThat(count(EventStatus.DEAD)).as("nothing DEAD, with maxAttempts 2").isZero();
    assertThat(flaky.requests()).as("the refused requests were tried again").hasSizeGreaterThan(10);
  }

  /**
   * No head-of-line blocking: one tenant's endpoint answers only after 3 s; the other tenant's
   * events, claimed in the same batches, are delivered and recorded meanwhile, and the slow
   * endpoint's events follow once it answers.
   */
  @Test
  void a_slow_endpoint_holds_up_no_other_endpoints_events() throws Exception {
    CountDownLatch slowAnswers = new CountDownLatch(1);
    HttpReceiver slow =
        VerifyingReceiver.start(WebhookVerifier.of(SECRET)).respond(r -> Reply.hang(slowAnswers));
    HttpReceiver healthy = VerifyingReceiver.start(WebhookVerifier.of(SECRET));
    WebhookTransport transport =
        closeAfterTest(tenants(slow, healthy).name("slow-beside-fast").build());
    OutboxRelay relay =
        closeAfterTest(
            OutboxRelay.builder(newPool(2), transport)
                .name("slow-beside-fast")
                .batchSize(20)
                .pollInterval(Duration.ofMillis(50))
                .build());

    appendTenant("TenantA", 2);
    appendTenant("TenantB", 38);
    relay.start();
    awaitCount(EventStatus.PUBLISHED, 38, Duration.ofSeconds(10));
    Await.until(
        () -> slow.requests().size() == 2,
        Duration.ofSeconds(10),
        () -> "the slow endpoint's 2 requests, still open; got " + slow.requests().size());
    assertThat(count(EventStatus.IN_FLIGHT)).isEqualTo(2);

    slowAnswers.countDown();
    awaitCount(EventStatus.PUBLISHED, 40, Duration.ofSeconds(10));
    assertThat(maxAttempts()).isZero();
  }

  /** A transport sending tenant A's events to one receiver, every other tenant's to another. */
  private WebhookTransport.Builder tenants(HttpReceiver tenantA, HttpReceiver others) {
    closeAfterTest(tenantA);
    closeAfterTest(others);
    return WebhookTransport.builder(
            e ->
                WebhookEndpoint.of(
                    (e.aggregateType().equals("TenantA") ? tenantA : others).uri("/hooks"), SECRET))
        .allowHttp()
        .allowPrivateAddresses();
  }

  private long queryLongQuietly(String query) {
    try {
      return Sql.queryLong(ds, query);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private void appendTenant(String tenant, int events) throws SQLException {
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      List<OutboxEvent> batch = new ArrayList<>();
      for (int i = 0; i < events; i++) {
        batch.add(
            OutboxEvent.builder(tenant, tenant + "-" + i, "Invoiced")
                .payload("{\"n\":" + i + "}")
                .build());
      }
      Outbox.appendAll(c, batch);
      c.commit();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** What the receiver does to an event's first request. */
  enum Fault {
    /** Answer 503 without processing. */
    REFUSE_FIRST,
    /** Process, then answer 500: the sender cannot tell it arrived. */
    LOSE_ANSWER
  }

  /** Picks the events (by order and number) that meet a fault, disjoint sets. */
  private static Map<String, Fault> faultPlan(Random random) {
    List<String> keys = new ArrayList<>(EVENTS);
    for (int o = 0; o < ORDERS; o++) {
      for (int n = 0; n < EVENTS_PER_ORDER; n++) {
        keys.add(order(o) + "#" + n);
      }
    }
    Collections.shuffle(keys, random);
    Map<String, Fault> plan = new HashMap<>();
    keys.subList(0, REFUSED_FIRST).forEach(k -> plan.put(k, Fault.REFUSE_FIRST));
    keys.subList(REFUSED_FIRST, REFUSED_FIRST + LOST_ANSWER)
        .forEach(k -> plan.put(k, Fault.LOSE_ANSWER));
    return plan;
  }

  /**
   * The receiving application. It tells events apart by their body (not by {@code webhook-id}, so
   * that the test checks that header), injects the planned fault on an event's first request, and
   * records processing under one lock: an order's events never overlap in ordered mode, so the
   * record order is the processing order.
   */
  static final class Shop {
    final Map<String, Fault> plan;
    private final Map<String, Integer> requests = new HashMap<>();
    private final Map<String, Integer> processed = new HashMap<>();
    private final Map<String, List<Integer>> firstProcessing = new HashMap<>();

    Shop(Map<String, Fault> plan) {
      this.plan = plan;
    }

    synchronized Reply handle(Request r) {
      String key = key(r);
      boolean firstTry = requests.merge(key, 1, Integer::sum) == 1;
      Fault fault = firstTry ? plan.get(key) : null;
      if (fault == Fault.REFUSE_FIRST) {
        return Reply.status(503);
      }
      if (processed.merge(key, 1, Integer::sum) == 1) {
        String[] parts = key.split("#");
        firstProcessing
            .computeIfAbsent(parts[0], o -> new ArrayList<>())
            .add(Integer.parseInt(parts[1]));
      }
      return Reply.status(fault == Fault.LOSE_ANSWER ? 500 : 204);
    }

    synchronized Map<String, Integer> processedCounts() {
      return new HashMap<>(processed);
    }

    synchronized Map<String, List<Integer>> firstProcessingOrder() {
      Map<String, List<Integer>> copy = new HashMap<>();
      firstProcessing.forEach((o, ns) -> copy.put(o, List.copyOf(ns)));
      return copy;
    }

    Set<String> keysWith(Fault fault) {
      return plan.entrySet().stream()
          .filter(e -> e.getValue() == fault)
          .map(Map.Entry::getKey)
          .collect(Collectors.toSet());
    }
  }

  /** Starts an ordered relay with its own connection pool, as a second process would have. */
  private void startRelay(String name, WebhookTransport transport, RecordingListener counters) {
    start(
        OutboxRelay.builder(newPool(4), transport)
            .name(name)
            .ordered(true)
            .batchSize(100)
            .pollInterval(Duration.ofMillis(50))
            .retryBackoff(Duration.ofMillis(5), Duration.ofMillis(50))
            .outageBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
            .listener(counters));
  }

  /**
   * Places the orders: each business transaction inserts one {@code shop_order_step} row and
   * appends that step's five events with {@link Outbox#appendAll} on the same connection,
   * auto-commit off, then commits. Every order gets its first step, then every order its second.
   */
  private List<OutboxEvent> placeOrders() throws SQLException {
    List<OutboxEvent> all = new ArrayList<>(EVENTS);
    try (Connection c = ds.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement step =
          c.prepareStatement("INSERT INTO shop_order_step (order_id, step) VALUES (?, ?)")) {
        for (int s = 0; s < TRANSACTIONS_PER_ORDER; s++) {
          for (int o = 0; o < ORDERS; o++) {
            String order = order(o);
            List<OutboxEvent> events = new ArrayList<>(EVENTS_PER_TRANSACTION);
            for (int k = 0; k < EVENTS_PER_TRANSACTION; k++) {
              int n = s * EVENTS_PER_TRANSACTION + k;
              OutboxEvent.Builder event =
                  OutboxEvent.builder("Order", order, "OrderStep" + n)
                      .payload("{\"order\":\"" + order + "\",\"n\":" + n + "}")
                      .header("correlation-id", order + "/" + s);
              if (o % 2 == 0) {
                event.aggregateVersion(n + 1L); // even orders only: absence travels too
              }
              events.add(event.build());
            }
            step.setString(1, order);
            step.setInt(2, s);
            step.executeUpdate();
            Outbox.appendAll(c, events);
            c.commit();
            all.addAll(events);
          }
        }
      }
    }
    return all;
  }

  private static String order(int o) {
    return "order-" + o;
  }

  private static String key(OutboxEvent e) {
    return key(new String(e.payload(), StandardCharsets.UTF_8));
  }

  private static String key(Request r) {
    return key(r.bodyText());
  }

  /** "order-17#3" from {@code {"order":"order-17","n":3}}. */
  private static String key(String body) {
    Matcher m = BODY.matcher(body);
    if (!m.matches()) {
      throw new AssertionError("unexpected body: " + body);
    }
    return m.group(1) + "#" + m.group(2);
  }

  private static Map<String, Integer> counts(Map<String, List<String>> byKey) {
    Map<String, Integer> counts = new HashMap<>();
    byKey.forEach((k, v) -> counts.put(k, v.size()));
    return counts;
  }
}
