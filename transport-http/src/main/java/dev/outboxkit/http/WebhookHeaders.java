package dev.outboxkit.http;

import dev.outboxkit.http.internal.HeaderValues;
import dev.outboxkit.internal.WireText;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * Names of the HTTP headers a webhook request carries, lower case (HTTP/2 sends them so; receivers
 * must match them case-insensitively anyway).
 *
 * <p>{@link WebhookTransport} sends, in this order: {@link #ID}, {@link #TIMESTAMP} and {@link
 * #SIGNATURE}; the {@code outbox-*} headers below; then the event's own headers; then the
 * endpoint's extra headers ({@link WebhookEndpoint.Builder#header}). An event header is skipped,
 * with one WARN per name, when its name is reserved ({@code content-type}, {@code webhook-*},
 * {@code outbox-*}, {@code svix-*}, connection-level headers), so that an event cannot forge a
 * signature; it is also skipped when the endpoint sets a header of that name.
 *
 * <p>Only the body, {@link #ID} and {@link #TIMESTAMP} are covered by {@link #SIGNATURE}. The
 * {@code outbox-*} headers are informative copies of event fields: convenient for routing and
 * logging on the receiver, but not signed, so a receiver that must trust a value takes it from the
 * (signed) payload.
 *
 * <p><b>Encoding.</b> The text values of the {@code outbox-*} headers ({@link #EVENT_TYPE}, {@link
 * #AGGREGATE_TYPE}, {@link #AGGREGATE_ID}, {@link #TENANT}) and of the event's own headers are sent
 * reversibly encoded: characters outside printable ASCII as percent-encoded UTF-8, and {@code %}
 * itself as {@code %25}; printable ASCII without {@code %} goes unchanged. So {@code ✓} arrives as
 * {@code %E2%9C%93}, the literal text {@code %E2%9C%93} as {@code %25E2%259C%2593}, and {@code 100%
 * ✓} as {@code 100%25 %E2%9C%93}. Receivers get the original text back with {@link #decode}. The
 * endpoint's extra headers are printable ASCII and sent as configured, never encoded.
 */
public final class WebhookHeaders {
  /** Standard Webhooks message id: the event id, identical on every attempt. */
  public static final String ID = "webhook-id";

  /**
   * Standard Webhooks timestamp: unix seconds of this attempt, read from the transport's clock, so
   * each retry is signed afresh.
   */
  public static final String TIMESTAMP = "webhook-timestamp";

  /**
   * Standard Webhooks signatures: space-separated {@code v1,<base64>}, one per active secret of the
   * endpoint.
   */
  public static final String SIGNATURE = "webhook-signature";

  /** The event type, e.g. {@code OrderPlaced}. */
  public static final String EVENT_TYPE = "outbox-event-type";

  /** The aggregate type, e.g. {@code Order}. */
  public static final String AGGREGATE_TYPE = "outbox-aggregate-type";

  /** The aggregate id. */
  public static final String AGGREGATE_ID = "outbox-aggregate-id";

  /** The payload schema version, a decimal integer. */
  public static final String SCHEMA_VERSION = "outbox-schema-version";

  /** The tenant; only sent when the event has one. */
  public static final String TENANT = "outbox-tenant";

  /**
   * The aggregate's version after this event ({@link
   * dev.outboxkit.OutboxEvent#aggregateVersion()}), a decimal integer of 1 or more; only sent when
   * the event has one. Read it with {@link #aggregateVersion(Function)}. Like every {@code
   * outbox-*} header it is not signed: a receiver whose inbox orders on it and cannot trust the
   * channel (TLS) to keep headers intact carries the version in the payload as well.
   */
  public static final String AGGREGATE_VERSION = "outbox-aggregate-version";

  /** When the event happened, ISO-8601 in UTC (e.g. {@code 2024-05-01T12:00:00.123456Z}). */
  public static final String OCCURRED_AT = "outbox-occurred-at";

  /** Which delivery attempt this is, 1 on the first. */
  public static final String ATTEMPT = "outbox-attempt";

  private WebhookHeaders() {}

  /**
   * Reads the {@link #AGGREGATE_VERSION} header of a request.
   *
   * <pre>{@code
   * OptionalLong version = WebhookHeaders.aggregateVersion(request::getHeader);
   * }</pre>
   *
   * @param header returns a header's value by name (called with the lower-case name; must match
   *     case-insensitively, as servlet containers do), or null when absent
   * @return the version, or empty if the request has no {@value #AGGREGATE_VERSION} header (the
   *     event was appended without one)
   * @throws IllegalArgumentException if the header is present but not a whole number of 1 or more;
   *     the message names the header
   */
  public static OptionalLong aggregateVersion(Function<String, String> header) {
    String value = Objects.requireNonNull(header, "header").apply(AGGREGATE_VERSION);
    return WireText.version(
        Optional.ofNullable(value).map(String::strip), () -> "header '" + AGGREGATE_VERSION + "'");
  }

  /**
   * The original text of an encoded header value (see the class comment): each {@code %XX} is a
   * byte, and runs of them are read as UTF-8. A value without {@code %} is returned as it is. For
   * the {@code outbox-*} text headers and the event's own headers; not for {@link #ID}, {@link
   * #TIMESTAMP}, {@link #SIGNATURE} or the endpoint's extra headers, which are never encoded.
   *
   * <pre>{@code
   * String aggregateId = WebhookHeaders.decode(request.getHeader(WebhookHeaders.AGGREGATE_ID));
   * }</pre>
   *
   * <p>Lenient with values no OutboxKit sender makes: a {@code %} not followed by two hex digits is
   * kept as it is, and bytes that are not UTF-8 become U+FFFD.
   *
   * @param value a header value as received; not null
   * @return the text the event carried
   */
  public static String decode(String value) {
    return HeaderValues.decode(Objects.requireNonNull(value, "value"));
  }
}
