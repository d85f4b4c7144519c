package dev.outboxkit.console;

import dev.outboxkit.jdbc.DeadEvent;
import dev.outboxkit.jdbc.LeaseHolder;
import dev.outboxkit.jdbc.OutboxSnapshot;
import dev.outboxkit.jdbc.StoredEvent;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The HTML pages. Every value goes through {@link Html}, which escapes it for its context. */
final class Pages {
  private final ConsoleHandler.Request r;
  private final int payloadLimit;

  Pages(ConsoleHandler.Request r, int payloadLimit) {
    this.r = r;
    this.payloadLimit = payloadLimit;
  }

  private Html page(String title) {
    return new Html(r.ex.mountPath(), title);
  }

  String overview(Overview o) {
    Html h = page("Outbox overview");
    OutboxSnapshot s = o.snapshot;
    h.tag("<section><h2>Events by status</h2><table id=\"counts\"><tr>")
        .tag("<th>Pending</th><th>In flight</th><th>Dead</th><th>Cancelled</th><th>Superseded</th>")
        .tag("<th>Oldest pending</th><th>Published, last ")
        .text(Html.duration(Overview.THROUGHPUT_WINDOW))
        .tag("</th></tr><tr>");
    cell(h, "pending", s.pending());
    cell(h, "in-flight", s.inFlight());
    cell(h, "dead", s.dead());
    cell(h, "cancelled", s.cancelled());
    cell(h, "superseded", s.superseded());
    h.tag("<td id=\"oldest-pending\">").text(Html.duration(s.oldestPendingAge().orElse(null)));
    h.tag("</td><td id=\"published-recently\">")
        .text((o.throughput.complete() ? "" : "≥ ") + o.throughput.published())
        .tag("</td></tr></table>");
    if (s.dead() > 0) {
      h.tag("<p>").link("/failures", Map.of(), s.dead() + " DEAD event(s): see why").tag("</p>");
    }
    h.tag("</section>");

    h.tag("<section><h2>Backlog by destination</h2>");
    if (!o.exact()) {
      h.tag("<p class=\"note\" id=\"sampled\">Grouped over the next ")
          .text(o.sampled)
          .tag(" of ")
          .text(s.pending())
          .tag(
              " pending events in claim order; totals marked ≈ are estimated from their"
                  + " share.</p>");
    }
    h.tag("<table id=\"by-destination\"><tr><th>Destination</th><th>Pending</th>")
        .tag("<th>Not yet due</th><th>Held as down</th><th>Oldest</th><th>Published/min</th>")
        .tag("<th>Estimated drain</th></tr>");
    for (Overview.Backlog b : o.byDestination) {
      Duration drain = o.drainTime(b);
      h.tag("<tr>").el("td", b.key == null ? "(default)" : b.key);
      h.el("td", (o.exact() ? "" : "≈ ") + o.pendingOf(b));
      h.tag("<td>").text(b.notDue).tag("</td><td>").text(b.held).tag("</td>");
      h.el("td", Html.instant(b.oldest));
      h.el("td", String.format("%.1f", o.throughput.perMinute(b.key)));
      h.el("td", drain == null ? "not draining" : Html.duration(drain)).tag("</tr>");
    }
    h.tag("</table>");
    backlog(h, "Backlog by event type", "by-event-type", o.byEventType);
    backlog(h, "Backlog by tenant", "by-tenant", o.byTenant);
    if (o.groupsCut) {
      h.tag("<p class=\"note\">The backlog has more groups than read; the largest are shown.</p>");
    }
    h.tag("</section><section><h2>Destinations held back as down</h2>");
    if (o.held.isEmpty()) {
      h.tag("<p id=\"no-held\">None.</p>");
    } else {
      h.tag("<table id=\"held\"><tr><th>Destination</th><th>Events held</th><th>Down since</th>")
          .tag("<th>Held until</th></tr>");
      for (Overview.Backlog d : o.held) {
        h.tag("<tr>").el("td", d.key == null ? "(default)" : d.key);
        h.tag("<td>").text(d.held).tag("</td>");
        h.el("td", Html.instant(d.heldSince)).el("td", Html.instant(d.heldUntil)).tag("</tr>");
      }
      h.tag("</table>");
    }
    h.tag("</section><section><h2>Relays holding events now</h2>");
    if (o.relays.isEmpty()) {
      h.tag("<p id=\"no-relays\">None holds an event right now (idle relays hold none).</p>");
    } else {
      h.tag("<table id=\"relays\"><tr><th>Relay</th><th>Events</th><th>Earliest lease end</th>")
          .tag("<th>Latest lease end</th></tr>");
      for (LeaseHolder l : o.relays) {
        h.tag("<tr>").el("td", l.owner()).tag("<td>").text(l.events()).tag("</td>");
        h.el("td", Html.instant(l.firstLeaseUntil())).el("td", Html.instant(l.lastLeaseUntil()));
        h.tag("</tr>");
      }
      h.tag("</table>");
    }
    return h.tag("</section>").finish();
  }

  private static void cell(Html h, String id, long value) {
    h.tag("<td id=\"" + id + "\">").text(value).tag("</td>");
  }

  private static void backlog(Html h, String title, String id, List<Overview.Backlog> rows) {
    h.tag("<h2>")
        .text(title)
        .tag("</h2><table id=\"" + id + "\"><tr><th>")
        .text(title.substring("Backlog by ".length()))
        .tag("</th><th>Pending (sampled)</th><th>Not yet due</th><th>Oldest</th></tr>");
    for (Overview.Backlog b : rows) {
      h.tag("<tr>").el("td", b.key == null ? "(none)" : b.key);
      h.tag("<td>").text(b.pending).tag("</td><td>").text(b.notDue).tag("</td>");
      h.el("td", Html.instant(b.oldest)).tag("</tr>");
    }
    h.tag("</table>");
  }

  String failures(DeadSelection selection, FailureGroups groups) {
    Html h = page("Failures");
    filterForm(h, selection);
    h.tag("<table id=\"failure-groups\"><tr><th>Reason</th><th>Events</th><th>First</th>")
        .tag("<th>Last</th><th>Destinations</th><th>Event types</th></tr>");
    for (FailureGroups.Group g : groups.groups) {
      Map<String, String> q = selection.parameters();
      q.put("reason", g.reason);
      h.tag("<tr><td class=\"reason\">").link("/failures/group", q, g.reason).tag("</td>");
      h.tag("<td>").text(g.events).tag("</td>").el("td", Html.instant(g.first));
      h.el("td", Html.instant(g.last)).el("td", String.join(", ", g.destinations));
      h.el("td", String.join(", ", g.eventTypes)).tag("</tr>");
    }
    h.tag("</table>");
    if (groups.groups.isEmpty()) {
      h.tag("<p id=\"no-failures\">No DEAD event matches.</p>");
    }
    if (groups.cut) {
      h.tag("<p class=\"note\">Grouped from the first ")
          .text(groups.rowsRead)
          .tag(" matching DEAD events; narrow the filter to see the rest.</p>");
    }
    return h.finish();
  }

  private void filterForm(Html h, DeadSelection selection) {
    Map<String, String> p = selection.parameters();
    h.tag("<form method=\"get\" class=\"filter\" id=\"filter\">");
    field(h, "destination", "Destination", p);
    field(h, "eventType", "Event type", p);
    field(h, "aggregateType", "Aggregate type", p);
    field(h, "aggregateId", "Aggregate id", p);
    field(h, "from", "Died from (UTC)", p);
    field(h, "to", "Died before (UTC)", p);
    h.hidden("reason", p.get("reason"));
    h.tag("<button type=\"submit\">Filter</button></form>");
  }

  private static void field(Html h, String name, String label, Map<String, String> values) {
    h.tag("<label>")
        .text(label)
        .tag(" <input name=\"")
        .attr(name)
        .tag("\" id=\"f-")
        .attr(name)
        .tag("\" value=\"")
        .attr(values.getOrDefault(name, ""))
        .tag("\"></label>");
  }

  String failureGroup(DeadSelection selection, List<DeadEvent> events) {
    Html h = page("Failure group");
    h.tag("<p class=\"reason\" id=\"group-reason\">").text(selection.reason).tag("</p>");
    h.tag("<p>Filter: ").text(selection.describe()).tag("</p>");
    if (r.may(ConsolePermission.OPERATE)) {
      actionForm(h, "/replay", "Replay (dry run first)", selection, null);
      actionForm(h, "/discard", "Discard (dry run first)", selection, null);
    }
    h.tag("<table id=\"group-events\"><tr><th>Seq</th><th>Event</th><th>Aggregate</th>")
        .tag("<th>Destination</th><th>Died</th><th>Attempts</th></tr>");
    Map<String, String> folded = new HashMap<>();
    int shown = 0;
    for (DeadEvent e : events) {
      if (!selection.matches(e, folded)) {
        continue;
      }
      shown++;
      h.tag("<tr><td>").text(e.seq()).tag("</td><td>");
      h.link("/events/" + e.id(), Map.of(), e.eventType()).tag("</td><td>");
      aggregateLink(h, e.aggregateType(), e.aggregateId()).tag("</td>");
      h.el("td", e.destination().orElse("(default)")).el("td", Html.instant(e.diedAt()));
      h.tag("<td>").text(e.attempts()).tag("</td></tr>");
    }
    h.tag("</table><p class=\"note\">")
        .text(shown)
        .tag(" shown of the first DEAD events the filter matches; a replay or discard acts on all")
        .tag(" of them.</p>");
    return h.finish();
  }

  private Html aggregateLink(Html h, String type, String id) {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("type", type);
    q.put("id", id);
    return h.link("/aggregates", q, type + " / " + id);
  }

  private void actionForm(
      Html h, String action, String label, DeadSelection selection, Long expected) {
    h.tag("<form method=\"post\" class=\"action\" action=\"").attr(h.base() + action).tag("\">");
    h.hidden(Csrf.PARAMETER, r.token);
    selection.parameters().forEach(h::hidden);
    if (expected != null) {
      h.hidden("confirm", "yes").hidden("expected", Long.toString(expected));
    }
    String id = (expected == null ? "dry-run-" : "confirm-") + action.substring(1);
    h.tag("<button type=\"submit\" id=\"" + id + "\">").text(label).tag("</button></form>");
  }

  String confirm(String operation, DeadSelection selection, DeadSelection.Count count) {
    Html h = page("Confirm " + operation);
    h.tag("<p id=\"dry-run\">The dry run found <strong id=\"dry-run-rows\">")
        .text(count.rows)
        .tag("</strong> DEAD event(s) of <strong id=\"dry-run-aggregates\">")
        .text(count.aggregates.size())
        .tag("</strong> aggregate(s) matching: ")
        .text(selection.describe())
        .tag(".</p>");
    if (!count.aggregates.isEmpty()) {
      h.tag("<ul id=\"dry-run-sample\">");
      for (String a : count.someAggregates()) {
        h.el("li", a);
      }
      h.tag("</ul>");
    }
    h.tag("<p>")
        .text(
            "replay".equals(operation)
                ? "Replaying sends them again: each goes back to PENDING with its attempts reset."
                : "Discarding deletes them from the table; they are never sent.")
        .tag("</p>");
    if (count.rows > 0) {
      actionForm(
          h,
          "/" + operation,
          "Yes, " + operation + " " + count.rows + " event(s)",
          selection,
          count.rows);
    }
    Map<String, String> back = selection.parameters();
    return h.tag("<p>").link("/failures/group", back, "Cancel").tag("</p>").finish();
  }

  String confirmCancel(Cancellation cancellation, long waiting) {
    Html h = page("Confirm cancel");
    h.tag("<p id=\"cancel-dry-run\">Cancelling withdraws <strong id=\"cancel-rows\">")
        .text(waiting)
        .tag("</strong> waiting event(s): ")
        .text(cancellation.describe())
        .tag(".</p><p>They become CANCELLED and are never sent; the reason stays with each. An")
        .tag(" event a relay holds right now is left alone and may still be delivered.</p>");
    if (waiting > 0) {
      h.tag("<form method=\"post\" class=\"action\" action=\"").attr(h.base() + "/cancel");
      h.tag("\">").hidden(Csrf.PARAMETER, r.token);
      cancellation.parameters().forEach(h::hidden);
      h.hidden("confirm", "yes").hidden("expected", Long.toString(waiting));
      h.tag("<button type=\"submit\" id=\"confirm-cancel\">")
          .text("Yes, cancel " + waiting + " event(s)")
          .tag("</button></form>");
    }
    h.tag("<p><a href=\"").attr(cancellation.page(h.base())).tag("\">Back</a></p>");
    return h.finish();
  }

  /** The form that starts a cancel: the reason is asked for, the confirmation comes next. */
  private void cancelForm(Html h, Map<String, String> target, String id, String label) {
    h.tag("<form method=\"post\" class=\"action cancel\" action=\"")
        .attr(h.base() + "/cancel")
        .tag("\">");
    h.hidden(Csrf.PARAMETER, r.token);
    target.forEach(h::hidden);
    h.tag("<label>Reason <input name=\"" + Cancellation.REASON + "\" required maxlength=\"1000\">")
        .tag("</label> <button type=\"submit\" id=\"" + id + "\">")
        .text(label)
        .tag("</button></form>");
  }

  String event(EventView v) {
    StoredEvent e = v.event;
    Html h = page("Event " + e.id());
    h.tag("<p id=\"why\" class=\"why\">").text(v.why).tag("</p>");
    if (r.may(ConsolePermission.OPERATE)
        && ("PENDING".equals(e.status()) || "DEAD".equals(e.status()))) {
      cancelForm(h, Map.of("event", e.id().toString()), "cancel-event", "Cancel this event");
    }
    h.tag("<table id=\"event\">");
    row(h, "Status", e.status());
    row(h, "Seq", Long.toString(e.seq()));
    h.tag("<tr><th>Aggregate</th><td>");
    aggregateLink(h, e.aggregateType(), e.aggregateId()).tag("</td></tr>");
    row(h, "Event type", e.eventType());
    row(h, "Schema version", Integer.toString(e.schemaVersion()));
    row(h, "Destination", e.destination().orElse("(default)"));
    row(h, "Tenant", e.tenant().orElse("—"));
    row(h, "Priority", Integer.toString(e.priority()));
    row(h, "Occurred", Html.instant(e.occurredAt()));
    row(h, "Available", Html.instant(e.availableAt()));
    row(h, "Expires", e.expiresAt().map(Object::toString).orElse("—"));
    row(h, "Finished", e.finishedAt().map(Object::toString).orElse("—"));
    row(
        h,
        "Attempts",
        e.attempts()
            + " (uncertain sends "
            + e.uncertainSends()
            + ", lost leases "
            + e.leaseLosses()
            + ")");
    row(
        h,
        "Lease",
        e.leaseOwner().map(o -> o + " until " + e.leaseUntil().orElse(null)).orElse("—"));
    row(h, "Last error", e.lastError().orElse("—"));
    row(
        h,
        "Aggregate version",
        e.aggregateVersion().isPresent() ? Long.toString(e.aggregateVersion().getAsLong()) : "—");
    row(h, "Supersede key", e.supersedeKey().orElse("—"));
    row(h, "Content type", e.contentType());
    h.tag("</table><h2>Headers</h2><table id=\"headers\">");
    if (!e.headers().isEmpty()) {
      e.headers().forEach((k, val) -> row(h, k, val));
    } else if (e.headersText().isPresent()) {
      row(h, "(as stored)", e.headersText().get());
    }
    h.tag("</table><h2>Payload</h2>");
    if (!r.may(ConsolePermission.VIEW_PAYLOADS)) {
      h.tag("<p id=\"payload-hidden\">Hidden: seeing payloads needs the payload role (")
          .text(e.payloadSize().orElse(0))
          .tag(" bytes).</p>");
    } else {
      h.tag("<pre id=\"payload\">").fullText(payloadText(e)).tag("</pre>");
    }
    return h.finish();
  }

  /** The payload as text (UTF-8, or Base64 if it is not), cut to the limit. */
  String payloadText(StoredEvent e) {
    byte[] p = e.payload().orElse(new byte[0]);
    byte[] shown = p.length > payloadLimit ? Arrays.copyOf(p, payloadLimit) : p;
    String cut =
        p.length > payloadLimit
            ? "\n… (" + p.length + " bytes, first " + payloadLimit + " shown)"
            : "";
    try {
      return StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(shown))
              .toString()
          + cut;
    } catch (CharacterCodingException binary) {
      return "(not UTF-8 text; Base64) "
          + java.util.Base64.getEncoder().encodeToString(shown)
          + cut;
    }
  }

  private static void row(Html h, String name, String value) {
    h.tag("<tr><th>").text(name).tag("</th><td>").text(value).tag("</td></tr>");
  }

  String aggregate(AggregateView v) {
    Html h = page("Aggregate " + Html.shown(v.type) + " / " + Html.shown(v.id));
    h.tag("<p>Its events that are not finished, in order (published ones are found by id).</p>");
    h.tag("<table id=\"timeline\"><tr><th>Seq</th><th>Event</th><th>Status</th><th>Why</th></tr>");
    for (StoredEvent e : v.events) {
      h.tag("<tr class=\"status-")
          .attr(e.status().toLowerCase(java.util.Locale.ROOT))
          .tag("\"><td>")
          .text(e.seq())
          .tag("</td><td>");
      h.link("/events/" + e.id(), Map.of(), e.eventType()).tag("</td>");
      h.el("td", e.status()).tag("<td class=\"why\">").text(v.why(e)).tag("</td></tr>");
    }
    h.tag("</table>");
    if (v.events.isEmpty()) {
      h.tag("<p id=\"nothing-waits\">Nothing of this aggregate waits.</p>");
    } else if (r.may(ConsolePermission.OPERATE)) {
      Map<String, String> target = new LinkedHashMap<>();
      target.put("type", v.type);
      target.put("id", v.id);
      cancelForm(h, target, "cancel-aggregate", "Cancel its waiting events");
    }
    return h.finish();
  }

  String audit(List<AuditLog.Entry> entries) {
    Html h = page("Audit");
    h.tag("<table id=\"audit\"><tr><th>When</th><th>Who</th><th>Action</th><th>Filter</th>")
        .tag("<th>Dry run</th><th>Changed</th><th>Outcome</th></tr>");
    for (AuditLog.Entry e : entries) {
      h.tag("<tr>").el("td", Html.instant(e.at)).el("td", e.actor).el("td", e.operation);
      h.el("td", e.criteria).el("td", String.valueOf(e.dryRunRows));
      h.el("td", e.changedRows == null ? "—" : e.changedRows.toString()).el("td", e.outcome);
      h.tag("</tr>");
    }
    return h.tag("</table>").finish();
  }
}
