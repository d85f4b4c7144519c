package dev.outboxkit.http;

import static dev.outboxkit.http.Events.SECRET;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxMdc;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.http.HttpReceiver;
import dev.outboxkit.testkit.logging.LogCapture;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * What an operator's log shows of a failing event: its id, never its payload, its header values or
 * the signing secret. Everything the relay and the real webhook transport log at every level (TRACE
 * included, whatever the file log's level) is captured while an event is retried after a 500 and
 * then quarantined as DEAD after a 410 Gone. A second, healthy event shares the first batch: a
 * batch whose every request fails counts as an endpoint outage, not as this event's failure.
 */
class WebhookLogHygieneTest {

  @Test
  void a_failing_send_logs_the_event_id_but_never_its_payload_headers_or_the_secret()
      throws Exception {
    String marker = "MARKER-" + UUID.randomUUID();
    OutboxEvent event =
        OutboxEvent.builder("Order", "o-1", "OrderPlaced")
            .payload("{\"card\":\"" + marker + "\"}")
            .header("x-customer-token", marker)
            .build();
    OutboxEvent healthy = OutboxEvent.builder("Order", "o-2", "OrderPlaced").payload("{}").build();
    AtomicInteger requests = new AtomicInteger();

    try (LogCapture capture = LogCapture.start();
        HttpReceiver receiver = VerifyingReceiver.start(WebhookVerifier.of(SECRET));
        TestDatabase db = TestDatabases.create(Flavor.H2, "WebhookLogHygiene");
        WebhookTransport transport =
            WebhookTransport.builder(receiver.uri("/hooks"), SECRET)
                .name("hygiene")
                .allowHttp()
                .allowPrivateAddresses() // the receiver is on 127.0.0.1
                .circuitOpenDuration(Duration.ofMillis(20))
                .build()) {
      // Control: the capture sees what the relay's logger writes at the lowest level, so a
      // payload logged anywhere in the relay would be caught.
      LoggerFactory.getLogger("dev.outboxkit.jdbc.OutboxRelay").trace("control {}", marker);
      assertThat(capture.lines()).anySatisfy(l -> assertThat(l.text()).contains(marker));
      int controlLines = capture.lines().size();

      receiver.respond(
          r -> {
            if (!"o-1".equals(r.header(WebhookHeaders.AGGREGATE_ID))) {
              return HttpReceiver.Reply.status(204);
            }
            return requests.incrementAndGet() == 1
                ? HttpReceiver.Reply.status(500, "x-echo", marker)
                : HttpReceiver.Reply.status(410, "x-echo", marker);
          });
      try (Connection c = db.connect()) {
        OutboxSchema.create(c);
        c.setAutoCommit(false);
        Outbox.appendAll(c, List.of(event, healthy));
        c.commit();
      }
      OutboxAdmin admin = OutboxAdmin.create(db.dataSource());
      try (OutboxRelay relay =
          OutboxRelay.builder(db.dataSource(), transport)
              .name("hygiene")
              .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(2))
              .outageBackoff(Duration.ofMillis(10), Duration.ofMillis(50))
              .pollInterval(Duration.ofMillis(10))
              .build()) {
        relay.start();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (admin.count(EventStatus.DEAD) < 1) {
          assertThat(System.nanoTime()).as("event quarantined in time").isLessThan(deadline);
          Thread.sleep(10);
        }
      }
      assertThat(requests).as("a 500, then the 410").hasValue(2);

      List<LogCapture.Line> lines = capture.lines().subList(controlLines, capture.lines().size());
      String id = event.id().toString();
      String secretKey = SECRET.substring("whsec_".length());
      assertThat(lines).isNotEmpty();
      for (LogCapture.Line line : lines) {
        assertThat(line.text())
            .as("%s %s", line.level(), line.logger())
            .doesNotContain(marker)
            .doesNotContain(secretKey);
        assertThat(line.mdc().values()).as("MDC of %s", line.text()).doesNotContain(marker);
      }
      // The DEAD line names the event, in its text and in the MDC.
      assertThat(lines)
          .filteredOn(l -> l.text().contains("quarantined as DEAD"))
          .singleElement()
          .satisfies(
              l -> {
                assertThat(l.text()).contains(id);
                assertThat(l.mdc()).containsEntry(OutboxMdc.EVENT_ID, id);
              });
      // The retry line (DEBUG) names it too.
      assertThat(lines)
          .filteredOn(l -> l.text().contains("failed, retry in"))
          .isNotEmpty()
          .allSatisfy(l -> assertThat(l.text()).contains(id));
    }
  }
}
