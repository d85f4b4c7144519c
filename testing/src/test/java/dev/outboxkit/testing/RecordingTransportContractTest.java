package dev.outboxkit.testing;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The kit on the test doubles themselves: the recording transport, and it wrapped by the faulty
 * one.
 */
class RecordingTransportContractTest extends TransportContract {
  private final List<RecordingTransport> made = new ArrayList<>();

  @Override
  protected Transport newTransport() {
    RecordingTransport t = new RecordingTransport();
    made.add(t);
    // A wrapper without rules passes everything through: it must keep the contract as well.
    return FaultyTransport.wrap(t).build();
  }

  @Override
  protected Transport newUnreachableTransport() {
    return new RecordingTransport().respondWith(m -> SendResult.unavailable("nobody there"));
  }

  @Override
  protected List<UUID> receivedIds() {
    List<UUID> ids = new ArrayList<>();
    for (RecordingTransport t : made) {
      for (OutboxEvent e : t.deliveredEvents()) {
        ids.add(e.id());
      }
    }
    return ids;
  }
}
