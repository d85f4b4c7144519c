package dev.outboxkit.console;

import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.jdbc.OutboxStorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Routes a request: who may do what, the security headers every answer carries, the CSRF and origin
 * checks every change passes, then the page or API call. Pages render in {@link Pages}, the API in
 * {@link ApiViews}; what they read is bounded ({@link Overview}, {@link FailureGroups}).
 */
final class ConsoleHandler {
  private static final Logger log = LoggerFactory.getLogger(OutboxConsole.class);

  /** No script at all, styles and images from the console only, never in a frame. */
  static final String CSP =
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self';"
          + " frame-ancestors 'none'; base-uri 'none'";

  private static final byte[] CSS = resource("console.css");

  private final OutboxAdmin admin;
  private final AuditLog audit;
  private final ConsoleAccess access;
  private final Csrf csrf;
  private final int payloadLimit;

  ConsoleHandler(
      OutboxAdmin admin, AuditLog audit, ConsoleAccess access, Csrf csrf, int payloadLimit) {
    this.admin = admin;
    this.audit = audit;
    this.access = access;
    this.csrf = csrf;
    this.payloadLimit = payloadLimit;
  }

  void handle(ConsoleExchange ex) throws IOException {
    String path = ex.path().isEmpty() ? "/" : ex.path();
    try {
      Set<ConsolePermission> granted = access.permissions(ex);
      if (!granted.contains(ConsolePermission.VIEW)) {
        send(ex, 403, "text/plain", "forbidden: this console needs a role that may view it");
        return;
      }
      String caller = ex.name().orElse("");
      Request r = new Request(ex, granted, csrf.tokenFor(caller), caller);
      if ("GET".equals(ex.method()) || "HEAD".equals(ex.method())) {
        get(r, path);
      } else if ("POST".equals(ex.method())) {
        post(r, path);
      } else {
        send(ex, 405, "text/plain", "method not allowed: " + ex.method());
      }
    } catch (IllegalArgumentException bad) {
      send(ex, 400, "text/plain", "bad request: " + bad.getMessage());
    } catch (OutboxStorageException | SQLException failed) {
      log.warn("OutboxKit console: {} {} failed: {}", ex.method(), path, failed.toString());
      send(ex, 503, "text/plain", "the database could not answer: " + failed.getMessage());
    } catch (RuntimeException unexpected) {
      // Its message stays in the server's log: the caller learns only that it failed.
      log.error("OutboxKit console: {} {} failed", ex.method(), path, unexpected);
      send(ex, 500, "text/plain", "the console failed; the server's log has the details");
    }
  }

  /** One request and what its caller may do. */
  static final class Request {
    final ConsoleExchange ex;
    final Set<ConsolePermission> granted;
    final String token;
    final String caller;

    Request(ConsoleExchange ex, Set<ConsolePermission> granted, String token, String caller) {
      this.ex = ex;
      this.granted = granted;
      this.token = token;
      this.caller = caller;
    }

    boolean may(ConsolePermission p) {
      return granted.contains(p);
    }
  }

  private void get(Request r, String path) throws IOException, SQLException {
    ConsoleExchange ex = r.ex;
    Pages pages = new Pages(r, payloadLimit);
    ApiViews api = new ApiViews(r, payloadLimit);
    switch (path) {
      case "/":
        html(ex, pages.overview(new Overview(admin)));
        return;
      case "/api/overview":
        json(ex, 200, api.overview(new Overview(admin)));
        return;
      case "/failures":
        html(ex, pages.failures(selection(ex), new FailureGroups(admin, selection(ex))));
        return;
      case "/api/failures":
        json(ex, 200, api.failures(new FailureGroups(admin, selection(ex))));
        return;
      case "/failures/group":
        html(ex, pages.failureGroup(selection(ex), admin.listDead(selection(ex).filter, 0, 100)));
        return;
      case "/aggregates":
        html(
            ex,
            pages.aggregate(AggregateView.read(admin, required(ex, "type"), required(ex, "id"))));
        return;
      case "/api/aggregates":
        json(
            ex,
            200,
            api.aggregate(AggregateView.read(admin, required(ex, "type"), required(ex, "id"))));
        return;
      case "/audit":
        html(ex, pages.audit(audit.newest(100)));
        return;
      case "/api/audit":
        json(ex, 200, api.audit(audit.newest(100)));
        return;
      case "/assets/console.css":
        Map<String, String> headers = securityHeaders("text/css; charset=utf-8");
        headers.put("Cache-Control", "max-age=3600");
        ex.respond(200, headers, CSS);
        return;
      default:
        break;
    }
    if (path.startsWith("/events/")) {
      EventView view = EventView.read(admin, path.substring("/events/".length()));
      if (view == null) {
        send(
            ex,
            404,
            "text/plain",
            "no event with this id in the table (never appended, or purged)");
      } else {
        html(ex, pages.event(view));
      }
    } else if (path.startsWith("/api/events/")) {
      EventView view = EventView.read(admin, path.substring("/api/events/".length()));
      if (view == null) {
        json(ex, 404, new Json().begin().field("error", "no such event").end().toString());
      } else {
        json(ex, 200, api.event(view));
      }
    } else {
      send(ex, 404, "text/plain", "not found: " + path);
    }
  }

  private void post(Request r, String path) throws IOException, SQLException {
    ConsoleExchange ex = r.ex;
    if (!r.may(ConsolePermission.OPERATE)) {
      send(ex, 403, "text/plain", "forbidden: replaying and discarding need the operate role");
      return;
    }
    String refusal = csrf.refusal(ex, r.caller);
    if (refusal != null) {
      send(ex, 403, "text/plain", "forbidden: " + refusal);
      return;
    }
    boolean api = path.startsWith("/api/");
    String action = api ? path.substring("/api".length()) : path;
    if ("/cancel".equals(action)) {
      cancel(r, api);
      return;
    }
    if (!"/replay".equals(action) && !"/discard".equals(action)) {
      send(ex, 404, "text/plain", "not found: " + path);
      return;
    }
    String operation = action.substring(1);
    DeadSelection selection = selection(ex);
    if (!"yes".equals(ex.parameter("confirm"))) {
      DeadSelection.Count count = selection.count(admin);
      if (api) {
        json(ex, 200, new ApiViews(r, payloadLimit).dryRun(operation, selection, count));
      } else {
        html(ex, new Pages(r, payloadLimit).confirm(operation, selection, count));
      }
      return;
    }
    long expected = expected(ex);
    String id = audit.started(r.caller, operation, selection.describe(), expected);
    long changed;
    try {
      changed =
          "replay".equals(operation)
              ? selection.apply(admin, admin::replayDead)
              : selection.apply(admin, admin::discardDead);
    } catch (RuntimeException e) {
      audit.ended(id, -1, "failed: " + e.getMessage());
      throw e;
    }
    audit.ended(id, changed, "done");
    log.info(
        "OutboxKit console: {} {} DEAD event(s) ({}; the dry run showed {}), audit {}",
        operation,
        changed,
        selection.describe(),
        expected,
        id);
    if (api) {
      json(ex, 200, new ApiViews(r, payloadLimit).done(operation, id, expected, changed));
    } else {
      Map<String, String> headers = securityHeaders("text/plain; charset=utf-8");
      headers.put("Location", ex.mountPath() + "/audit");
      ex.respond(303, headers, new byte[0]);
    }
  }

  /** Withdraws an event or an aggregate's waiting events, after a confirmation, audited. */
  private void cancel(Request r, boolean api) throws IOException, SQLException {
    ConsoleExchange ex = r.ex;
    Cancellation cancellation = Cancellation.from(ex);
    if (!"yes".equals(ex.parameter("confirm"))) {
      long waiting = cancellation.count(admin);
      if (api) {
        json(ex, 200, new ApiViews(r, payloadLimit).cancelDryRun(cancellation, waiting));
      } else {
        html(ex, new Pages(r, payloadLimit).confirmCancel(cancellation, waiting));
      }
      return;
    }
    long expected = expected(ex);
    String id = audit.started(r.caller, "cancel", cancellation.describe(), expected);
    Cancellation.Outcome outcome;
    try {
      outcome = cancellation.apply(admin);
    } catch (RuntimeException e) {
      audit.ended(id, -1, "failed: " + e.getMessage());
      throw e;
    }
    audit.ended(id, outcome.cancelled, outcome.text);
    log.info(
        "OutboxKit console: cancel {} ({}), audit {}", cancellation.describe(), outcome.text, id);
    if (api) {
      json(ex, 200, new ApiViews(r, payloadLimit).done("cancel", id, expected, outcome.cancelled));
    } else {
      Map<String, String> headers = securityHeaders("text/plain; charset=utf-8");
      headers.put("Location", cancellation.page(ex.mountPath()));
      ex.respond(303, headers, new byte[0]);
    }
  }

  private static long expected(ConsoleExchange ex) {
    String v = ex.parameter("expected");
    if (v == null) {
      throw new IllegalArgumentException(
          "a confirmed action names the dry run's count in parameter expected; run it without"
              + " confirm=yes first");
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("parameter expected must be a number, was " + v);
    }
  }

  private static DeadSelection selection(ConsoleExchange ex) {
    return DeadSelection.from(ex::parameter);
  }

  private static String required(ConsoleExchange ex, String name) {
    String v = ex.parameter(name);
    if (v == null || v.isEmpty()) {
      throw new IllegalArgumentException("parameter " + name + " is required");
    }
    return v;
  }

  private static void html(ConsoleExchange ex, String page) throws IOException {
    ex.respond(
        200, securityHeaders("text/html; charset=utf-8"), page.getBytes(StandardCharsets.UTF_8));
  }

  private static void json(ConsoleExchange ex, int status, String body) throws IOException {
    ex.respond(
        status,
        securityHeaders("application/json; charset=utf-8"),
        body.getBytes(StandardCharsets.UTF_8));
  }

  private static void send(ConsoleExchange ex, int status, String type, String text)
      throws IOException {
    ex.respond(
        status, securityHeaders(type + "; charset=utf-8"), text.getBytes(StandardCharsets.UTF_8));
  }

  /** The headers of every answer. */
  static Map<String, String> securityHeaders(String contentType) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", contentType);
    h.put("Content-Security-Policy", CSP);
    h.put("X-Frame-Options", "DENY");
    h.put("X-Content-Type-Options", "nosniff");
    h.put("Referrer-Policy", "same-origin");
    h.put("Cache-Control", "no-store");
    return h;
  }

  private static byte[] resource(String name) {
    try (InputStream in = ConsoleHandler.class.getResourceAsStream(name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("the console's " + name + " is missing from its jar", e);
    }
  }
}
