package dev.outboxkit.console;

import dev.outboxkit.jdbc.LeaseHolder;
import dev.outboxkit.jdbc.OutboxSnapshot;
import dev.outboxkit.jdbc.StoredEvent;
import java.time.Duration;
import java.util.List;

/** The JSON API: the same figures as the pages, for scripts and alerting (docs/console.md). */
final class ApiViews {
  private final ConsoleHandler.Request r;
  private final Pages pages;

  ApiViews(ConsoleHandler.Request r, int payloadLimit) {
    this.r = r;
    this.pages = new Pages(r, payloadLimit);
  }

  String overview(Overview o) {
    OutboxSnapshot s = o.snapshot;
    Json j = new Json().begin().field("csrfToken", r.token).field("takenAt", s.takenAt());
    j.field("pending", s.pending()).field("inFlight", s.inFlight()).field("dead", s.dead());
    j.field("cancelled", s.cancelled()).field("superseded", s.superseded());
    j.number("oldestPendingSeconds", s.oldestPendingAge().map(Duration::getSeconds).orElse(null));
    j.field("publishedRecently", o.throughput.published());
    j.field("publishedWindowSeconds", Overview.THROUGHPUT_WINDOW.getSeconds());
    j.field("publishedCountComplete", o.throughput.complete());
    j.field("sampled", o.sampled).field("sampleIsWholeBacklog", o.exact());
    j.array("destinations");
    for (Overview.Backlog b : o.byDestination) {
      Duration drain = o.drainTime(b);
      backlog(j.begin(), b).field("pendingEstimate", o.pendingOf(b));
      j.field("held", b.held).field("publishedPerMinute", o.throughput.perMinute(b.key));
      j.number("estimatedDrainSeconds", drain == null ? null : drain.getSeconds());
      j.end();
    }
    j.endArray().array("eventTypes");
    for (Overview.Backlog b : o.byEventType) {
      backlog(j.begin(), b).end();
    }
    j.endArray().array("tenants");
    for (Overview.Backlog b : o.byTenant) {
      backlog(j.begin(), b).end();
    }
    j.endArray().array("heldDestinations");
    for (Overview.Backlog d : o.held) {
      j.begin().field("destination", d.key).field("events", d.held);
      j.field("since", d.heldSince).field("heldUntil", d.heldUntil).end();
    }
    j.endArray().array("relays");
    for (LeaseHolder l : o.relays) {
      j.begin().field("owner", l.owner()).field("events", l.events());
      j.field("firstLeaseUntil", l.firstLeaseUntil()).field("lastLeaseUntil", l.lastLeaseUntil());
      j.end();
    }
    return j.endArray().end().toString();
  }

  private static Json backlog(Json j, Overview.Backlog b) {
    return j.field("key", b.key)
        .field("pending", b.pending)
        .field("notDue", b.notDue)
        .field("oldest", b.oldest);
  }

  String failures(FailureGroups groups) {
    Json j = new Json().begin().field("rowsRead", groups.rowsRead).field("cut", groups.cut);
    j.array("groups");
    for (FailureGroups.Group g : groups.groups) {
      j.begin().field("reason", g.reason).field("events", g.events);
      j.field("first", g.first).field("last", g.last).array("destinations");
      g.destinations.forEach(j::value);
      j.endArray().array("eventTypes");
      g.eventTypes.forEach(j::value);
      j.endArray().end();
    }
    return j.endArray().end().toString();
  }

  String event(EventView v) {
    Json j = new Json().begin().field("why", v.why);
    event(j, v.event, true);
    return j.end().toString();
  }

  private Json event(Json j, StoredEvent e, boolean full) {
    j.field("id", e.id().toString()).field("seq", e.seq()).field("status", e.status());
    j.field("aggregateType", e.aggregateType()).field("aggregateId", e.aggregateId());
    j.field("eventType", e.eventType()).field("destination", e.destination());
    j.field("tenant", e.tenant()).field("priority", e.priority());
    j.field("occurredAt", e.occurredAt()).field("availableAt", e.availableAt());
    j.field("expiresAt", e.expiresAt().orElse(null));
    j.field("finishedAt", e.finishedAt().orElse(null)).field("attempts", e.attempts());
    j.field("uncertainSends", e.uncertainSends()).field("leaseLosses", e.leaseLosses());
    j.field("leaseOwner", e.leaseOwner()).field("leaseUntil", e.leaseUntil().orElse(null));
    j.field("lastError", e.lastError());
    if (full) {
      j.field("contentType", e.contentType());
      j.array("headers");
      e.headers().forEach((k, v) -> j.begin().field("name", k).field("value", v).end());
      j.endArray();
      if (r.may(ConsolePermission.VIEW_PAYLOADS)) {
        j.field("payload", pages.payloadText(e));
      }
    }
    return j;
  }

  String aggregate(AggregateView v) {
    Json j = new Json().begin().field("aggregateType", v.type).field("aggregateId", v.id);
    j.array("events");
    for (StoredEvent e : v.events) {
      event(j.begin(), e, false).field("why", v.why(e)).end();
    }
    return j.endArray().end().toString();
  }

  String audit(List<AuditLog.Entry> entries) {
    Json j = new Json().begin().array("entries");
    for (AuditLog.Entry e : entries) {
      j.begin().field("id", e.id).field("at", e.at).field("actor", e.actor);
      j.field("operation", e.operation).field("criteria", e.criteria);
      j.number("dryRunRows", e.dryRunRows).number("changedRows", e.changedRows);
      j.field("outcome", e.outcome).end();
    }
    return j.endArray().end().toString();
  }

  String dryRun(String operation, DeadSelection selection, DeadSelection.Count count) {
    Json j = new Json().begin().field("operation", operation).field("dryRun", true);
    j.field("criteria", selection.describe()).field("rows", count.rows);
    j.field("aggregates", count.aggregates.size()).array("someAggregates");
    count.someAggregates().forEach(j::value);
    return j.endArray().end().toString();
  }

  String cancelDryRun(Cancellation cancellation, long waiting) {
    return new Json()
        .begin()
        .field("operation", "cancel")
        .field("dryRun", true)
        .field("criteria", cancellation.describe())
        .field("rows", waiting)
        .end()
        .toString();
  }

  String done(String operation, String auditId, long expected, long changed) {
    return new Json()
        .begin()
        .field("operation", operation)
        .field("dryRun", false)
        .field("audit", auditId)
        .field("expected", expected)
        .field("changed", changed)
        .end()
        .toString();
  }
}
