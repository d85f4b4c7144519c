package dev.outboxkit.http;

import dev.outboxkit.Transport;
import dev.outboxkit.testing.TransportContract;
import dev.outboxkit.testkit.Ports;
import dev.outboxkit.testkit.http.HttpReceiver;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The transport contract kit against a real HTTP receiver on loopback. */
class WebhookTransportContractTest extends TransportContract {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static HttpReceiver receiver;

  @BeforeAll
  static void startReceiver() throws IOException {
    receiver = VerifyingReceiver.start(WebhookVerifier.of(SECRET));
  }

  @AfterAll
  static void stopReceiver() {
    receiver.close();
  }

  @Override
  protected Transport newTransport() {
    return WebhookTransport.builder(receiver.uri("/contract"), SECRET)
        .name("contract")
        .allowHttp()
        .allowPrivateAddresses()
        .build();
  }

  @Override
  protected Transport newUnreachableTransport() throws IOException {
    int port = Ports.unused();
    return WebhookTransport.builder(URI.create("http://127.0.0.1:" + port + "/contract"), SECRET)
        .name("unreachable")
        .allowHttp()
        .allowPrivateAddresses()
        .requestTimeout(Duration.ofSeconds(2))
        .build();
  }

  @Override
  protected List<UUID> receivedIds() {
    List<UUID> ids = new ArrayList<>();
    for (HttpReceiver.Request r : receiver.requests("/contract")) {
      ids.add(UUID.fromString(r.header("webhook-id")));
    }
    return ids;
  }
}
