package dev.outboxkit.console;

import static dev.outboxkit.console.ConsoleClient.form;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestFlavors;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The console over HTTP on each database, standalone: who may see and do what, the checks every
 * change passes, replay and discard by filter after a dry run with an audit row, failures grouped
 * by reason, why an event waits, and hostile values shown as inert text.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleContractTest {
  static List<Flavor> flavors() {
    return TestFlavors.of(Flavor.POSTGRES, Flavor.MARIADB, Flavor.H2);
  }

  @Parameter Flavor flavor;

  private ConsoleFixture f;

  private void start() throws Exception {
    if (f == null) {
      f = new ConsoleFixture(flavor);
    }
  }

  @AfterParameterizedClassInvocation
  void stop() {
    if (f != null) {
      f.close();
      f = null;
    }
  }

  @BeforeEach
  void emptyTables() throws Exception {
    start();
    f.execute("DELETE FROM outbox_event");
    f.execute("DELETE FROM outbox_console_audit");
  }

  @Test
  void nothingIsServedWithoutAccess() throws Exception {
    assertThatThrownBy(() -> OutboxConsole.builder(f.db.dataSource()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("access");
    assertThat(new ConsoleClient(f.base, null, null).get("/").statusCode()).isEqualTo(401);
    assertThat(f.as("viewer").get("/").statusCode()).isEqualTo(200);
    assertThat(new ConsoleClient(f.base, "viewer", "wrong").get("/").statusCode()).isEqualTo(401);
    HttpResponse<String> nobody = f.as("nobody").get("/");
    assertThat(nobody.statusCode()).isEqualTo(403);
    assertThat(f.as("nobody").get("/api/overview").statusCode()).isEqualTo(403);
  }

  @Test
  void everyAnswerCarriesTheSecurityHeaders() throws Exception {
    for (String path : new String[] {"/", "/failures", "/api/overview", "/audit", "/nowhere"}) {
      HttpResponse<String> r = f.as("viewer").get(path);
      assertThat(r.headers().firstValue("Content-Security-Policy"))
          .as(path)
          .hasValueSatisfying(
              csp -> assertThat(csp).contains("default-src 'none'").doesNotContain("script-src"));
      assertThat(r.headers().firstValue("X-Frame-Options")).as(path).contains("DENY");
      assertThat(r.headers().firstValue("X-Content-Type-Options")).as(path).contains("nosniff");
    }
  }

  @Test
  void theOverviewCountsWhatTheTableHolds() throws Exception {
    for (int i = 0; i < 3; i++) {
      f.append("o" + i, "OrderPlaced", "crm", "{}");
    }
    UUID dead = f.append("o9", "OrderPlaced", "billing", "{}");
    f.dead(dead, "HTTP 503 from https://billing/x");
    UUID claimed = f.append("o8", "OrderShipped", "crm", "{}");
    f.update(
        claimed, "status = 'IN_FLIGHT', lease_owner = 'relay-a', lease_until = " + f.inSeconds(30));

    String json = f.as("viewer").get("/api/overview").body();
    assertThat(json).contains("\"pending\":3", "\"inFlight\":1", "\"dead\":1");
    assertThat(json).contains("\"owner\":\"relay-a\",\"events\":1");
    String page = f.as("viewer").get("/").body();
    assertThat(page).contains("<td id=\"pending\">3</td>", "<td id=\"dead\">1</td>");
    assertThat(page).contains("relay-a", "crm");
  }

  @Test
  void aViewerCannotReplayEvenWithItsOwnToken() throws Exception {
    UUID dead = f.append("o1", "OrderPlaced", "crm", "{}");
    f.dead(dead, "HTTP 503");
    ConsoleClient viewer = f.as("viewer");
    HttpResponse<String> r =
        viewer.post(
            "/replay",
            form("csrf", viewer.token(), "confirm", "yes", "expected", "1"),
            viewer.origin());
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(f.status(dead)).isEqualTo("DEAD");
    assertThat(viewer.get("/failures/group?reason=HTTP%20503").body())
        .doesNotContain("dry-run-replay");
  }

  @Test
  void aChangeWithoutTokenOrFromAnotherOriginIsRefused() throws Exception {
    UUID dead = f.append("o1", "OrderPlaced", "crm", "{}");
    f.dead(dead, "HTTP 503");
    ConsoleClient operator = f.as("operator");
    String token = operator.token();
    assertThat(
            operator
                .post("/replay", form("confirm", "yes", "expected", "1"), operator.origin())
                .statusCode())
        .isEqualTo(403);
    assertThat(
            operator
                .post(
                    "/replay",
                    form("csrf", "forged", "confirm", "yes", "expected", "1"),
                    operator.origin())
                .statusCode())
        .isEqualTo(403);
    assertThat(
            operator
                .post(
                    "/replay",
                    form("csrf", token, "confirm", "yes", "expected", "1"),
                    "http://evil.example")
                .statusCode())
        .isEqualTo(403);
    assertThat(
            operator
                .post("/replay", form("csrf", token, "confirm", "yes", "expected", "1"), null)
                .statusCode())
        .as("no Origin and no Referer")
        .isEqualTo(403);
    assertThat(f.as("viewer").token()).as("tokens are per caller").isNotEqualTo(token);
    assertThat(f.status(dead)).isEqualTo("DEAD");
  }

  @Test
  void replayByFilterDryRunsThenReplaysInBatchesAndAudits() throws Exception {
    int n = 1_200; // more than two pages of DeadSelection.PAGE
    try (Connection c = f.db.connect()) {
      c.setAutoCommit(false);
      for (int i = 0; i < n; i++) {
        dev.outboxkit.jdbc.Outbox.append(
            c,
            dev.outboxkit.OutboxEvent.builder("Order", "a" + (i % 300), "OrderPlaced")
                .destination("crm")
                .payload("{}")
                .build());
      }
      c.commit();
    }
    f.execute(
        "UPDATE outbox_event SET status = 'DEAD', attempts = 5, published_at = "
            + f.now()
            + ", last_error = 'gave up after 5 attempts: HTTP 503 from https://crm.example/orders'");
    UUID other = f.append("b1", "OrderPlaced", "billing", "{}");
    f.dead(other, "HTTP 400 from billing");

    ConsoleClient operator = f.as("operator");
    String token = operator.token();
    HttpResponse<String> dry =
        operator.post("/replay", form("csrf", token, "destination", "crm"), operator.origin());
    assertThat(dry.statusCode()).isEqualTo(200);
    assertThat(dry.body())
        .contains(
            "<strong id=\"dry-run-rows\">1200</strong>",
            "<strong id=\"dry-run-aggregates\">300</strong>");
    assertThat(f.count("status = 'DEAD'")).as("a dry run changes nothing").isEqualTo(n + 1);

    HttpResponse<String> done =
        operator.post(
            "/replay",
            form("csrf", token, "destination", "crm", "confirm", "yes", "expected", "1200"),
            operator.origin());
    assertThat(done.statusCode()).isEqualTo(303);
    assertThat(f.count("status = 'PENDING' AND attempts = 0 AND destination = 'crm'")).isEqualTo(n);
    assertThat(f.status(other)).isEqualTo("DEAD");

    try (Connection c = f.db.connect();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT actor, operation, criteria, dry_run_rows,"
                    + " changed_rows, outcome FROM outbox_console_audit")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("operator");
      assertThat(rs.getString(2)).isEqualTo("replay");
      assertThat(rs.getString(3)).isEqualTo("destination=crm");
      assertThat(rs.getLong(4)).isEqualTo(1200);
      assertThat(rs.getLong(5)).isEqualTo(1200);
      assertThat(rs.getString(6)).isEqualTo("done");
      assertThat(rs.next()).isFalse();
    }
    assertThat(operator.get("/audit").body()).contains("destination=crm", "operator");
  }

  @Test
  void failuresAreGroupedByTheirFoldedReasonAndActedOnByGroup() throws Exception {
    UUID a = f.append("o1", "OrderPlaced", "crm", "{}");
    UUID b = f.append("o2", "OrderPlaced", "crm", "{}");
    UUID c = f.append("o3", "OrderPlaced", "crm", "{}");
    f.dead(
        a,
        "HTTP 503 from https://crm.example/orders/4711 (request 5f0e9a1c-1b2d-4e3f-8a9b-0c1d2e3f4a5b)");
    f.dead(
        b,
        "HTTP 503 from https://crm.example/orders/4712 (request 0e9a1c5f-1b2d-4e3f-8a9b-0c1d2e3f4a5b)");
    f.dead(c, "HTTP 400 from https://crm.example/orders/4713");
    String json = f.as("viewer").get("/api/failures").body();
    assertThat(json)
        .contains(
            "{\"reason\":\"HTTP 503 from \\u003curl\\u003e (request \\u003cid\\u003e)\",\"events\":2");
    assertThat(json).contains("{\"reason\":\"HTTP 400 from \\u003curl\\u003e\",\"events\":1");

    ConsoleClient operator = f.as("operator");
    HttpResponse<String> done =
        operator.post(
            "/discard",
            form(
                "csrf",
                operator.token(),
                "reason",
                "HTTP 503 from <url> (request <id>)",
                "confirm",
                "yes",
                "expected",
                "2"),
            operator.origin());
    assertThat(done.statusCode()).isEqualTo(303);
    assertThat(f.status(a)).isNull();
    assertThat(f.status(b)).isNull();
    assertThat(f.status(c)).isEqualTo("DEAD");
  }

  @Test
  void anAggregatesTimelineSaysWhyEachEventWaits() throws Exception {
    UUID first = f.append("4711", "OrderPlaced", "crm", "{}");
    UUID second = f.append("4711", "OrderPaid", "crm", "{}");
    UUID claimed = f.append("4712", "OrderPlaced", "crm", "{}");
    UUID later = f.append("4713", "OrderPlaced", "crm", "{}");
    UUID held = f.append("4714", "OrderPlaced", "crm", "{}");
    f.dead(first, "HTTP 500");
    f.update(
        claimed, "status = 'IN_FLIGHT', lease_owner = 'relay-b', lease_until = " + f.inSeconds(30));
    f.update(
        later, "available_at = " + f.inSeconds(600) + ", attempts = 2, last_error = 'timeout'");
    f.update(
        held,
        "available_at = "
            + f.inSeconds(600)
            + ", last_error = 'destination down since 2026-12-04T10:00:00Z: HTTP 503'");

    ConsoleClient viewer = f.as("viewer");
    String timeline = viewer.get("/api/aggregates?type=Order&id=4711").body();
    assertThat(timeline).contains("Quarantined at", "HTTP 500");
    assertThat(timeline).contains("In ordered mode, held behind DEAD event seq");
    assertThat(viewer.get("/events/" + claimed).body()).contains("Claimed by relay relay-b until");
    assertThat(viewer.get("/events/" + later).body()).contains("Retrying: not due until");
    assertThat(viewer.get("/events/" + held).body()).contains("is down since 2026-12-04T10:00:00Z");
    assertThat(viewer.get("/api/overview").body())
        .contains(
            "\"heldDestinations\":[{\"destination\":\"crm\",\"events\":1,\"since\":\"2026-12-04T10:00:00Z\"");
    assertThat(viewer.get("/events/" + UUID.randomUUID()).statusCode()).isEqualTo(404);
    assertThat(viewer.get("/events/not-a-uuid").statusCode()).isEqualTo(400);
    assertThat(second).isNotNull();
  }

  @Test
  void anOperatorCancelsAnEventOrAnAggregateAfterConfirmingAndItIsAudited() throws Exception {
    UUID one = f.append("c1", "OrderPlaced", "crm", "{}");
    UUID a1 = f.append("c2", "OrderPlaced", "crm", "{}");
    UUID a2 = f.append("c2", "OrderPaid", "crm", "{}");
    UUID claimed = f.append("c2", "OrderShipped", "crm", "{}");
    f.update(
        claimed, "status = 'IN_FLIGHT', lease_owner = 'relay-c', lease_until = " + f.inSeconds(30));
    ConsoleClient operator = f.as("operator");
    String token = operator.token();
    assertThat(operator.get("/events/" + one).body()).contains("id=\"cancel-event\"");
    assertThat(f.as("viewer").get("/events/" + one).body()).doesNotContain("cancel-event");
    assertThat(
            operator
                .post("/cancel", form("csrf", token, "event", one.toString()), operator.origin())
                .statusCode())
        .as("no reason given")
        .isEqualTo(400);

    HttpResponse<String> confirm =
        operator.post(
            "/cancel",
            form("csrf", token, "event", one.toString(), "cancelReason", "order withdrawn"),
            operator.origin());
    assertThat(confirm.body()).contains("<strong id=\"cancel-rows\">1</strong>");
    assertThat(f.status(one)).as("nothing changes before the confirmation").isEqualTo("PENDING");
    HttpResponse<String> done =
        operator.post(
            "/cancel",
            form(
                "csrf",
                token,
                "event",
                one.toString(),
                "cancelReason",
                "order withdrawn",
                "confirm",
                "yes",
                "expected",
                "1"),
            operator.origin());
    assertThat(done.statusCode()).isEqualTo(303);
    assertThat(done.headers().firstValue("Location")).contains("/events/" + one);
    assertThat(f.status(one)).isEqualTo("CANCELLED");

    String dryRun =
        operator
            .post(
                "/api/cancel",
                form("csrf", token, "type", "Order", "id", "c2", "cancelReason", "customer left"),
                operator.origin())
            .body();
    assertThat(dryRun).contains("\"rows\":2");
    operator.post(
        "/api/cancel",
        form(
            "csrf",
            token,
            "type",
            "Order",
            "id",
            "c2",
            "cancelReason",
            "customer left",
            "confirm",
            "yes",
            "expected",
            "2"),
        operator.origin());
    assertThat(f.status(a1)).isEqualTo("CANCELLED");
    assertThat(f.status(a2)).isEqualTo("CANCELLED");
    assertThat(f.status(claimed)).as("a relay holds it").isEqualTo("IN_FLIGHT");
    assertThat(operator.get("/api/audit").body())
        .contains(
            "\"operation\":\"cancel\"",
            "order withdrawn",
            "customer left",
            "cancelled 2, left to the relay 1",
            "\"outcome\":\"CANCELLED\"");
    assertThat(
            f.as("viewer")
                .post(
                    "/cancel",
                    form(
                        "csrf",
                        f.as("viewer").token(),
                        "event",
                        a1.toString(),
                        "cancelReason",
                        "x",
                        "confirm",
                        "yes",
                        "expected",
                        "1"),
                    operator.origin())
                .statusCode())
        .isEqualTo(403);
  }

  @Test
  void payloadsAreHiddenUnlessAllowedAndNeverMarkup() throws Exception {
    UUID id = f.append("o1", "OrderPlaced", "crm", "{\"note\":\"<img src=x onerror=alert(1)>\"}");
    String viewerPage = f.as("viewer").get("/events/" + id).body();
    assertThat(viewerPage).contains("id=\"payload-hidden\"").doesNotContain("onerror");
    assertThat(f.as("viewer").get("/api/events/" + id).body()).doesNotContain("\"payload\"");
    String operatorPage = f.as("operator").get("/events/" + id).body();
    assertThat(operatorPage).contains("&lt;img src=x onerror=alert(1)&gt;").doesNotContain("<img");
  }

  @Test
  void hostileValuesRenderAsInertText() throws Exception {
    UUID id = f.append("o1", "OrderPlaced", "crm", "{}");
    String script = "<script>alert('x')</script>";
    String quotes = "\"><svg onload=alert(1)>";
    String crlf = "a\r\nSet-Cookie: evil=1";
    String rtl = "\u202Etxt.exe";
    String longText = "L".repeat(10_000);
    f.update(
        id,
        "event_type = ?, aggregate_id = ?, destination = ?, tenant = ?, status = 'DEAD',"
            + " last_error = ?, published_at = "
            + f.now(),
        script,
        quotes,
        crlf,
        rtl,
        longText.substring(0, 900) + script);
    ConsoleClient viewer = f.as("viewer");
    for (String path :
        new String[] {
          "/",
          "/failures",
          "/events/" + id,
          "/aggregates?type=Order&id=" + java.net.URLEncoder.encode(quotes, "UTF-8"),
          "/failures/group?reason=" + java.net.URLEncoder.encode(script, "UTF-8")
        }) {
      HttpResponse<String> r = viewer.get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(200);
      assertThat(r.body()).as(path).doesNotContain("<script", "<svg");
      assertThat(r.headers().firstValue("Set-Cookie")).as(path).isEmpty();
    }
    assertThat(viewer.get("/events/" + id).body()).contains("&lt;script&gt;");
    String json = viewer.get("/api/events/" + id).body();
    assertThat(json).doesNotContain("<script").contains("\\u003cscript\\u003e");
    assertThat(viewer.get("/aggregates?type=T&id=" + longText).body())
        .as("a 10,000-character id is cut on the page")
        .contains("(10000 characters)");
  }
}
