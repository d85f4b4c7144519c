package dev.outboxkit.samples.custom;

import dev.outboxkit.Transport;
import dev.outboxkit.testing.TransportContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;

/**
 * How to check your own transport: extend {@link TransportContract} (from {@code
 * outboxkit-testing}), say how to make it and how to read what its destination got.
 */
class AuditLedgerTransportContractTest extends TransportContract {
  private static final Pattern ID = Pattern.compile("^\\{\"id\":\"([0-9a-f-]{36})\"");
  @TempDir Path dir;

  @Override
  protected Transport newTransport() {
    return new AuditLedgerTransport(dir.resolve("audit.jsonl"));
  }

  /** A ledger in a folder that does not exist: every write fails. */
  @Override
  protected Transport newUnreachableTransport() {
    return new AuditLedgerTransport(dir.resolve("missing").resolve("audit.jsonl"));
  }

  @Override
  protected List<UUID> receivedIds() throws Exception {
    Path ledger = dir.resolve("audit.jsonl");
    List<UUID> ids = new ArrayList<>();
    if (Files.exists(ledger)) {
      for (String line : Files.readAllLines(ledger)) {
        Matcher m = ID.matcher(line);
        if (m.find()) {
          ids.add(UUID.fromString(m.group(1)));
        }
      }
    }
    return ids;
  }
}
