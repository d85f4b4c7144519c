package dev.outboxkit.http;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import java.util.List;
import java.util.stream.Stream;

/** Small factories for test events. */
final class Events {
  static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  static final String OTHER_SECRET =
      "whsec_"
          + java.util.Base64.getEncoder()
              .encodeToString(
                  "another-secret-of-24-bytes!!"
                      .getBytes(java.nio.charset.StandardCharsets.US_ASCII));

  private Events() {}

  static OutboxEvent event(String aggregateId, String json) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced").payload(json).build();
  }

  /** An event whose header tells the receiver how to answer. */
  static OutboxEvent event(String aggregateId, String json, String reply) {
    return OutboxEvent.builder("Order", aggregateId, "OrderPlaced")
        .payload(json)
        .header("test-reply", reply)
        .build();
  }

  static OutboxMessage first(OutboxEvent e) {
    return OutboxMessage.of(e, 1);
  }

  static List<OutboxMessage> firstAttempts(OutboxEvent... events) {
    return Stream.of(events).map(Events::first).toList();
  }
}
