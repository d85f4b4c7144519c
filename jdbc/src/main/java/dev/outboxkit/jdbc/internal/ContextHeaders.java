package dev.outboxkit.jdbc.internal;

import dev.outboxkit.InvalidEventException;
import dev.outboxkit.OutboxEvent;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Headers taken from the appending caller's context (trace context, typically) and added to each
 * event that does not carry a header of the same name already.
 */
final class ContextHeaders {
  /** The W3C Trace Context header that names the current span. */
  public static final String TRACEPARENT = "traceparent";

  private final Supplier<Map<String, String>> supplier;

  /** Wraps the caller's supplier. */
  public ContextHeaders(Supplier<Map<String, String>> supplier) {
    this.supplier = supplier;
  }

  /**
   * Asks the supplier once and checks what it gave.
   *
   * @return the headers to add; empty if the supplier returned null or nothing
   * @throws InvalidEventException if a name or value breaks the event header rules, or a {@code
   *     traceparent} is not a W3C trace-context value
   */
  public Map<String, String> current() {
    Map<String, String> headers = supplier.get();
    if (headers == null || headers.isEmpty()) {
      return Map.of();
    }
    // The rules of OutboxEvent.Builder#header, applied by that builder itself so there is one
    // definition of a valid header.
    OutboxEvent.builder("context", "headers", "check").headers(headers);
    for (Map.Entry<String, String> h : headers.entrySet()) {
      if (h.getKey().equalsIgnoreCase(TRACEPARENT) && !isTraceparent(h.getValue())) {
        throw new InvalidEventException(
            "headers",
            "contextHeaders supplied traceparent '"
                + h.getValue()
                + "', which is not a W3C trace context (version-traceid-parentid-flags in lower"
                + " case hex, e.g. 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01);"
                + " fix the supplier or leave the header out when there is no current span");
      }
    }
    return headers;
  }

  /** The event's headers plus those context headers whose names (any case) it lacks. */
  public static Map<String, String> merge(Map<String, String> event, Map<String, String> context) {
    if (context.isEmpty()) {
      return event;
    }
    Set<String> present = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    present.addAll(event.keySet());
    Map<String, String> merged = new LinkedHashMap<>(event);
    for (Map.Entry<String, String> h : context.entrySet()) {
      if (present.add(h.getKey())) {
        merged.put(h.getKey(), h.getValue());
      }
    }
    return merged;
  }

  /**
   * True for {@code version-traceid-parentid-flags} as W3C Trace Context defines it: lower-case
   * hex, version not {@code ff}, ids not all zeros; versions after 00 may append fields.
   */
  static boolean isTraceparent(String value) {
    if (value.length() < 55 || !hex(value, 0, 2) || value.startsWith("ff")) {
      return false;
    }
    if (value.startsWith("00")
        ? value.length() != 55
        : value.length() > 55 && value.charAt(55) != '-') {
      return false;
    }
    return value.charAt(2) == '-'
        && hex(value, 3, 35)
        && value.charAt(35) == '-'
        && hex(value, 36, 52)
        && value.charAt(52) == '-'
        && hex(value, 53, 55)
        && !value.substring(3, 35).equals("0".repeat(32))
        && !value.substring(36, 52).equals("0".repeat(16));
  }

  private static boolean hex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }
}
