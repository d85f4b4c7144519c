/**
 * OutboxKit's event model and transport SPI. Depends on nothing but the JDK.
 *
 * <p>{@code dev.outboxkit.internal} is exported only to OutboxKit's own modules (the javax JMS
 * jar's automatic module among them), for what they share (event validation, the escaping of text
 * bound for a log line, the threads they make, the answers a transport gives before sending, the
 * routing precedence, the tally of a batch, the reading of event fields back from a message); it is
 * not API. The warning for a module of that list missing at compile time is suppressed: each is
 * built after this one.
 */
@SuppressWarnings("module")
module dev.outboxkit.api {
  exports dev.outboxkit;
  exports dev.outboxkit.internal to
      dev.outboxkit.jdbc,
      dev.outboxkit.kafka,
      dev.outboxkit.jms,
      dev.outboxkit.jms.javax,
      dev.outboxkit.http;
}
