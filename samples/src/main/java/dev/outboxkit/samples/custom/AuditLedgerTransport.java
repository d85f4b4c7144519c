package dev.outboxkit.samples.custom;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.SYNC;

import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A {@link Transport} to a made-up destination: an append-only audit ledger, one JSON line per
 * event. A failed write is retried; a payload the ledger cannot take (not JSON) is rejected; after
 * {@link #close()} every event is answered unavailable, as the transport contract asks ({@code
 * AuditLedgerTransportContractTest} runs the kit from {@code outboxkit-testing} against it).
 */
public final class AuditLedgerTransport implements Transport {
  private final Path file;
  private volatile boolean closed;

  /**
   * @param file the ledger, created on the first write (its folder must exist)
   */
  public AuditLedgerTransport(Path file) {
    this.file = file;
  }

  /** Appends one line; synchronized because several relays may share one transport. */
  @Override
  public synchronized SendResult send(OutboxMessage message) {
    if (closed) {
      return SendResult.unavailable("audit ledger transport is closed");
    }
    var e = message.event();
    if (!e.contentType().startsWith("application/json")) {
      return SendResult.reject("the ledger takes JSON only, not " + e.contentType());
    }
    // One line per event: raw line breaks in valid JSON are mere whitespace.
    String json = new String(e.payload(), UTF_8).replaceAll("\\R", " ");
    String line = String.format("{\"id\":\"%s\",\"data\":%s}%n", e.id(), json);
    try {
      Files.writeString(file, line, CREATE, APPEND, SYNC); // SYNC: on disk before "delivered"
      return SendResult.delivered();
    } catch (IOException ex) {
      return SendResult.retry("ledger write failed: " + ex, null); // null: the relay's backoff
    }
  }

  /** Sends nothing more: every later event is answered unavailable. */
  @Override
  public void close() {
    closed = true;
  }
}
