package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxkit.Failures;
import dev.outboxkit.OutboxEvent;
import dev.outboxkit.OutboxMessage;
import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sends whose outcome is unknown, on every database, through a real HTTP endpoint and a transport
 * of the kind a user writes: a connection cut after the request was written is answered {@link
 * SendResult#uncertain}, counted on the row and told to the listener; a transport that can look
 * events up is asked before the event goes out again, so an event that did arrive is not delivered
 * twice.
 */
@ParameterizedClass(name = "{0}", allowZeroInvocations = true)
@MethodSource("flavors")
class UncertainSendContractTest extends RelayDatabaseTest {
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  private HttpServer server;
  private final Map<UUID, Integer> posts = new ConcurrentHashMap<>();
  private final Set<UUID> stored = ConcurrentHashMap.newKeySet();
  // Events whose next POST the endpoint stores (or not), then cuts without answering.
  private final Map<UUID, Boolean> cutNext = new ConcurrentHashMap<>();
  private final List<UUID> lookups = new CopyOnWriteArrayList<>();
  private volatile boolean lookupsFail;

  @BeforeEach
  void endpoint() throws IOException {
    // One instance may serve several tests of a flavour: every test starts from nothing.
    posts.clear();
    stored.clear();
    cutNext.clear();
    lookups.clear();
    lookupsFail = false;
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/events", this::handle);
    server.start();
  }

  @AfterEach
  void stopEndpoint() {
    server.stop(0);
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if ("POST".equals(exchange.getRequestMethod())) {
        UUID id = UUID.fromString(exchange.getRequestHeaders().getFirst("Event-Id"));
        exchange.getRequestBody().readAllBytes();
        posts.merge(id, 1, Integer::sum);
        Boolean storeThenCut = cutNext.remove(id);
        if (storeThenCut != null) {
          if (storeThenCut) {
            stored.add(id);
          }
          return; // closed without a response: the client cannot know what happened
        }
        stored.add(id);
        exchange.sendResponseHeaders(204, -1);
      } else {
        UUID id = UUID.fromString(path.substring("/events/".length()));
        lookups.add(id);
        int status = lookupsFail ? 500 : stored.contains(id) ? 200 : 404;
        exchange.sendResponseHeaders(status, -1);
      }
    }
  }

  /** A webhook transport as an application team writes one: POST per event, GET to look up. */
  private static class EventEndpoint implements Transport {
    private final HttpClient client =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final URI base;
    private final boolean canLookUp;

    EventEndpoint(URI base, boolean canLookUp) {
      this.base = base;
      this.canLookUp = canLookUp;
    }

    @Override
    public SendResult send(OutboxMessage message) {
      HttpRequest post =
          HttpRequest.newBuilder(base)
              .header("Event-Id", message.event().id().toString())
              .POST(HttpRequest.BodyPublishers.ofByteArray(message.event().payload()))
              .build();
      try {
        int status = client.send(post, HttpResponse.BodyHandlers.discarding()).statusCode();
        return status < 300 ? SendResult.delivered() : SendResult.retry("HTTP " + status, null);
      } catch (ConnectException | HttpConnectTimeoutException e) {
        return SendResult.retry("not connected: " + Failures.describe(e), null); // never left
      } catch (IOException e) {
        return SendResult.uncertain("no answer: " + Failures.describe(e)); // it may have arrived
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return SendResult.unavailable("interrupted");
      }
    }

    @Override
    public boolean confirmsDelivery() {
      return canLookUp;
    }

    @Override
    public boolean confirm(OutboxMessage message) {
      HttpRequest get =
          HttpRequest.newBuilder(base.resolve("events/" + message.event().id())).build();
      try {
        int status = client.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status != 200 && status != 404) {
          throw new IllegalStateException("lookup answered HTTP " + status);
        }
        return status == 200;
      } catch (IOException e) {
        throw new IllegalStateException("lookup failed", e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      }
    }
  }

  private URI base() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/events");
  }

  private OutboxRelay relay(Transport transport, RecordingListener listener) {
    return relay(transport, "uncertain").listener(listener).build();
  }

  @Test
  void an_event_found_at_its_destination_after_an_uncertain_send_is_not_sent_again()
      throws Exception {
    List<OutboxEvent> events = append(3, i -> event("a" + i, i));
    UUID cut = events.get(1).id();
    cutNext.put(cut, true); // stored, then no answer
    RecordingListener heard = new RecordingListener();

    try (OutboxRelay relay = relay(new EventEndpoint(base(), true), heard)) {
      relay.drainUntilDone(PATIENCE);
    }

    assertThat(posts).containsOnlyKeys(events.get(0).id(), cut, events.get(2).id());
    assertThat(posts.values()).as("each POSTed once").containsOnly(1);
    assertThat(lookups).containsExactly(cut);
    assertThat(heard.uncertain).containsExactly(cut);
    Map<String, Object> row = row(cut);
    assertThat(row.get("status")).isEqualTo("PUBLISHED");
    assertThat(row.get("uncertain_sends")).isEqualTo(1);
    assertThat(row.get("attempts")).as("the uncertain send was charged").isEqualTo(1);
    assertThat(row(events.get(0).id()).get("uncertain_sends")).isEqualTo(0);
  }

  @Test
  void an_event_the_destination_does_not_have_is_sent_again() throws Exception {
    UUID cut = append(1, i -> event("a", i)).get(0).id();
    cutNext.put(cut, false); // lost before it was stored
    RecordingListener heard = new RecordingListener();

    try (OutboxRelay relay = relay(new EventEndpoint(base(), true), heard)) {
      relay.drainUntilDone(PATIENCE);
    }

    assertThat(posts).containsEntry(cut, 2);
    assertThat(stored).containsExactly(cut);
    assertThat(lookups).containsExactly(cut);
    assertThat(row(cut).get("status")).isEqualTo("PUBLISHED");
    assertThat(row(cut).get("uncertain_sends")).isEqualTo(1);
  }

  @Test
  void a_lookup_that_fails_sends_the_event_again_rather_than_lose_it() throws Exception {
    UUID cut = append(1, i -> event("a", i)).get(0).id();
    cutNext.put(cut, true);
    lookupsFail = true;

    try (OutboxRelay relay = relay(new EventEndpoint(base(), true), new RecordingListener())) {
      relay.drainUntilDone(PATIENCE);
    }

    assertThat(posts).as("a duplicate, never a loss").containsEntry(cut, 2);
    assertThat(row(cut).get("status")).isEqualTo("PUBLISHED");
  }

  @Test
  void without_a_lookup_uncertain_sends_are_sent_again_and_counted_up_to_dead() throws Exception {
    UUID cut = append(1, i -> event("a", i)).get(0).id();
    RecordingListener heard = new RecordingListener();
    Transport alwaysCut =
        new EventEndpoint(base(), false) {
          @Override
          public SendResult send(OutboxMessage message) {
            cutNext.put(message.event().id(), true);
            return super.send(message);
          }
        };

    try (OutboxRelay relay = relay(alwaysCut, "uncertain").listener(heard).maxAttempts(3).build()) {
      relay.drainUntilDone(PATIENCE);
    }

    assertThat(posts).containsEntry(cut, 3);
    assertThat(lookups).isEmpty();
    assertThat(heard.uncertain).containsExactly(cut, cut, cut);
    List<DeadEvent> dead = admin().listDead(0, 10);
    assertThat(dead).singleElement().satisfies(d -> assertThat(d.uncertainSends()).isEqualTo(3));
    assertThat(dead.get(0).lastError()).contains("gave up after 3 attempts: no answer");
  }
}
