package dev.outboxkit.http;

/**
 * Names of the HTTP headers a webhook request carries, lower case (HTTP/2 sends them so; receivers
 * must match them case-insensitively anyway).
 *
 * <p>Only the body, {@link #ID} and {@link #TIMESTAMP} are covered by {@link #SIGNATURE}. The
 * {@code outbox-*} headers are informative copies of event fields: convenient for routing and
 * logging on the receiver, but not signed, so a receiver that must trust a value takes it from the
 * (signed) payload. Values outside printable ASCII are sent percent-encoded as UTF-8.
 */
public final class WebhookHeaders {
  /** Standard Webhooks message id: the event id, identical on every attempt. */
  public static final String ID = "webhook-id";

  /** Standard Webhooks timestamp: unix seconds of this attempt. */
  public static final String TIMESTAMP = "webhook-timestamp";

  /** Standard Webhooks signatures: space-separated {@code v1,<base64>}, one per active secret. */
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

  /** When the event happened, ISO-8601 in UTC (e.g. {@code 2024-05-01T12:00:00.123456Z}). */
  public static final String OCCURRED_AT = "outbox-occurred-at";

  /** Which delivery attempt this is, 1 on the first. */
  public static final String ATTEMPT = "outbox-attempt";

  private WebhookHeaders() {}
}
