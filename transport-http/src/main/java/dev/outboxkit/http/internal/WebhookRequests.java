package dev.outboxkit.http.internal;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.http.WebhookEndpoint;
import dev.outboxkit.http.WebhookHeaders;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the signed request of one event for one endpoint: the payload byte for byte, the Standard
 * Webhooks headers ({@code webhook-id}, {@code webhook-timestamp} of this attempt, one {@code
 * webhook-signature} per secret), the {@code outbox-*} metadata, then the event's own headers, then
 * the endpoint's extra headers. An event header is skipped (with one WARN per name) when its name
 * is reserved, so an event cannot forge a signature, and when the endpoint sets a header of that
 * name.
 */
public final class WebhookRequests {
  private static final Logger log = LoggerFactory.getLogger("dev.outboxkit.http.WebhookTransport");
  private static final int MAX_WARNED_HEADER_NAMES = 100;

  private final String name;
  private final Clock clock;
  private final Duration requestTimeout;
  private final Set<String> warnedHeaderNames = ConcurrentHashMap.newKeySet();

  /**
   * @param name the transport's name, for log lines
   * @param clock the source of {@code webhook-timestamp}
   * @param requestTimeout the timeout of each request
   */
  public WebhookRequests(String name, Clock clock, Duration requestTimeout) {
    this.name = name;
    this.clock = clock;
    this.requestTimeout = requestTimeout;
  }

  /**
   * The request, signed now.
   *
   * @throws IllegalArgumentException if a header cannot be carried by HTTP (the JDK's message
   *     quotes the value: keep it out of reasons)
   */
  public HttpRequest build(WebhookEndpoint endpoint, URI url, OutboxMessage message) {
    OutboxEvent e = message.event();
    byte[] body = e.payload();
    String id = e.id().toString();
    long timestamp = clock.instant().getEpochSecond();
    HttpRequest.Builder b =
        HttpRequest.newBuilder(url)
            .timeout(requestTimeout)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .header("content-type", e.contentType())
            .header(WebhookHeaders.ID, id)
            .header(WebhookHeaders.TIMESTAMP, Long.toString(timestamp))
            .header(WebhookHeaders.SIGNATURE, endpoint.signer().sign(id, timestamp, body))
            .header(WebhookHeaders.EVENT_TYPE, HeaderValues.encode(e.eventType()))
            .header(WebhookHeaders.AGGREGATE_TYPE, HeaderValues.encode(e.aggregateType()))
            .header(WebhookHeaders.AGGREGATE_ID, HeaderValues.encode(e.aggregateId()))
            .header(WebhookHeaders.SCHEMA_VERSION, Integer.toString(e.schemaVersion()))
            .header(WebhookHeaders.OCCURRED_AT, e.occurredAt().toString())
            .header(WebhookHeaders.ATTEMPT, Integer.toString(message.attempt()));
    e.tenant().ifPresent(t -> b.header(WebhookHeaders.TENANT, HeaderValues.encode(t)));
    e.aggregateVersion()
        .ifPresent(v -> b.header(WebhookHeaders.AGGREGATE_VERSION, Long.toString(v)));
    for (Map.Entry<String, String> h : e.headers().entrySet()) {
      String headerName = h.getKey();
      if (HeaderValues.isReserved(headerName)) {
        warnReserved(headerName, e);
      } else if (!endpoint.hasHeader(headerName)) {
        b.header(headerName, HeaderValues.encode(h.getValue()));
      }
    }
    endpoint.headers().forEach(b::header);
    return b.build();
  }

  private void warnReserved(String headerName, OutboxEvent e) {
    if (warnedHeaderNames.size() < MAX_WARNED_HEADER_NAMES
        && warnedHeaderNames.add(headerName.toLowerCase(Locale.ROOT))) {
      log.warn(
          "[{}] Event header '{}' is reserved by the webhook transport and is not sent"
              + " (first seen on event {}); rename it",
          name,
          headerName,
          e.id());
    }
  }
}
