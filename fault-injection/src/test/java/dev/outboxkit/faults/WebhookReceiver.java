package dev.outboxkit.faults;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A webhook receiver on plain sockets that can answer, answer late, or stall forever, and that sees
 * when a client gives up on a request: it watches the connection while it holds the answer back, so
 * a request counts as open exactly as long as a client still waits for it. (The JDK's {@code
 * HttpServer} cannot tell an abandoned exchange from a patient one.)
 *
 * <p>It records every request whose body arrived (a receipt: the receiver has the event), the
 * requests clients abandoned, the longest time a request stayed open, and every time a request for
 * a {@code webhook-id} arrived while another one for the same id was still open, which would mean
 * two relays, or a relay and its own abandoned send, delivering one event at once.
 *
 * <p>Each connection carries one request ({@code Connection: close}).
 */
final class WebhookReceiver implements AutoCloseable {
  /** What to do with a request. */
  enum Mode {
    /** 204 at once. */
    ANSWER,
    /** 204 after {@link #lateMillis}, whether or not the client still waits. */
    LATE,
    /** Never answer; hold the connection until the client closes it. */
    STALL
  }

  private final ServerSocket server;
  private final ExecutorService pool;
  private final Thread acceptor;
  private final long lateMillis;
  private volatile Function<String, Mode> behaviour = id -> Mode.ANSWER;
  private volatile boolean closed;

  private final Map<String, AtomicInteger> receipts = new ConcurrentHashMap<>();
  private final Map<Long, String> open = new HashMap<>(); // arrival nanos -> id
  private final List<String> overlaps = new CopyOnWriteArrayList<>();
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicInteger abandoned = new AtomicInteger();
  private final AtomicInteger late = new AtomicInteger();
  private final AtomicInteger stalled = new AtomicInteger();
  private final AtomicLong longestOpenMillis = new AtomicLong();

  WebhookReceiver(long lateMillis) {
    this.lateMillis = lateMillis;
    try {
      server = new ServerSocket(0, 200, InetAddress.getByName("127.0.0.1"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    pool =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "webhook-receiver");
              t.setDaemon(true);
              return t;
            });
    acceptor = new Thread(this::acceptAll, "webhook-receiver-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort() + "/hooks");
  }

  /** Decides per request, from its {@code webhook-id} and whether that id came before. */
  void behave(Function<String, Mode> behaviour) {
    this.behaviour = behaviour;
  }

  /** True if a request with this id arrived before (used by behaviours). */
  boolean seenBefore(String id) {
    return !seen.add(id);
  }

  Map<String, Integer> receipts() {
    Map<String, Integer> copy = new HashMap<>();
    receipts.forEach((id, n) -> copy.put(id, n.get()));
    return copy;
  }

  List<String> overlaps() {
    return List.copyOf(overlaps);
  }

  int abandoned() {
    return abandoned.get();
  }

  int late() {
    return late.get();
  }

  int stalled() {
    return stalled.get();
  }

  /** The longest any request stayed open, counting those still open now. */
  synchronized long longestOpenMillis() {
    long longest = longestOpenMillis.get();
    long now = System.nanoTime();
    for (long arrived : open.keySet()) {
      longest = Math.max(longest, (now - arrived) / 1_000_000);
    }
    return longest;
  }

  private void acceptAll() {
    while (!closed) {
      try {
        Socket s = server.accept();
        pool.execute(() -> handle(s));
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void handle(Socket socket) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream());
      Map<String, String> headers = readHead(in);
      if (headers == null) {
        return;
      }
      in.readNBytes(Integer.parseInt(headers.getOrDefault("content-length", "0")));
      String id = headers.getOrDefault("webhook-id", "?");
      receipts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
      Mode mode = behaviour.apply(id);
      long arrived = opened(id);
      boolean clientLeft = false;
      try {
        switch (mode) {
          case ANSWER:
            break;
          case LATE:
            late.incrementAndGet();
            clientLeft = waitForClose(socket, in, lateMillis);
            break;
          case STALL:
            stalled.incrementAndGet();
            clientLeft = waitForClose(socket, in, Long.MAX_VALUE);
            break;
          default:
            throw new AssertionError(mode);
        }
      } finally {
        closed(id, arrived);
      }
      if (clientLeft) {
        abandoned.incrementAndGet();
      }
      if (!clientLeft && !closed) {
        OutputStream out = socket.getOutputStream();
        out.write(
            "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    } catch (IOException e) {
      // the client went away while we answered
    }
  }

  /**
   * Holds the answer back for up to {@code millis}, watching the connection.
   *
   * @return true if the client closed it meanwhile
   */
  private boolean waitForClose(Socket socket, InputStream in, long millis) throws IOException {
    long deadline =
        millis == Long.MAX_VALUE ? Long.MAX_VALUE : System.nanoTime() + millis * 1_000_000;
    socket.setSoTimeout(20);
    while (!closed && (deadline == Long.MAX_VALUE || System.nanoTime() - deadline < 0)) {
      try {
        if (in.read() < 0) {
          return true;
        }
      } catch (SocketTimeoutException e) {
        // still connected, still waiting
      } catch (IOException e) {
        return true; // reset
      }
    }
    return false;
  }

  private synchronized long opened(String id) {
    if (open.containsValue(id)) {
      overlaps.add(id);
    }
    long arrived = System.nanoTime();
    while (open.containsKey(arrived)) {
      arrived++;
    }
    open.put(arrived, id);
    return arrived;
  }

  private synchronized void closed(String id, long arrived) {
    open.remove(arrived);
    longestOpenMillis.accumulateAndGet((System.nanoTime() - arrived) / 1_000_000, Math::max);
  }

  private static Map<String, String> readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int last4 = 0;
    while (last4 != 0x0d0a0d0a) { // up to the blank line that ends the head
      int b = in.read();
      if (b < 0) {
        return null;
      }
      head.write(b);
      last4 = (last4 << 8) | b;
    }
    Map<String, String> headers = new HashMap<>();
    String[] lines = head.toString(StandardCharsets.US_ASCII).split("\r\n");
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
    }
    return headers;
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // nothing to do
    }
    pool.shutdownNow();
    try {
      pool.awaitTermination(5, TimeUnit.SECONDS);
      acceptor.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
