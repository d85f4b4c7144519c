package dev.outboxkit.testkit;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {
  private EchoServer echo;

  @BeforeEach
  void startEchoServer() throws IOException {
    echo = new EchoServer();
  }

  @AfterEach
  void stopEchoServer() {
    echo.close();
  }

  @Test
  void forwards_both_ways_and_passes_an_orderly_close_on() throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port())) {
      assertThat(proxy.host()).isEqualTo("127.0.0.1");
      try (Socket client = connect(proxy, 2_000)) {
        send(client, "hello");
        assertThat(receive(client, 5)).isEqualTo("hello");
        eventually(() -> proxy.forwardedBytes() == 10);
        assertThat(proxy.connections()).isEqualTo(1);

        // The server speaks first in some protocols (MySQL's greeting).
        send(echo.nextAccepted(), "hi");
        assertThat(receive(client, 2)).isEqualTo("hi");
      }
      eventually(() -> proxy.connections() == 0);
    }
  }

  @Test
  void black_hole_silences_both_directions_without_closing_and_resume_delivers_in_order()
      throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
        Socket client = connect(proxy, 500)) {
      Socket serverSide = echo.nextAccepted();
      send(client, "ping");
      assertThat(receive(client, 4)).isEqualTo("ping");

      proxy.blackHole();
      send(serverSide, "from-server;");
      send(client, "from-client");
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      assertThat(echo.received()).isEqualTo(4);
      assertThat(client.isClosed()).isFalse();
      assertThat(proxy.connections()).isEqualTo(1);

      // A connection made while black-holed is accepted, but nothing gets through.
      try (Socket late = connect(proxy, 200)) {
        send(late, "late");
        assertThatThrownBy(() -> late.getInputStream().read())
            .isInstanceOf(SocketTimeoutException.class);
        eventually(() -> proxy.connections() == 2);

        proxy.resume();
        // The short timeouts proved silence; what must arrive now may take a busy machine longer.
        client.setSoTimeout(5_000);
        late.setSoTimeout(5_000);
        assertThat(receive(client, 23)).isEqualTo("from-server;from-client");
        assertThat(receive(late, 4)).isEqualTo("late");
      }
    }
  }

  @Test
  void resume_delivers_a_large_held_stream_intact() throws Exception {
    // More than loopback's socket buffers hold (about 4 MB on Linux), so some of it stays with the
    // writer until resume(): the held stream spans the proxy's buffer, the kernel's and the sender.
    byte[] payload = new byte[8 * 1024 * 1024];
    new Random(42).nextBytes(payload);
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
        Socket client = connect(proxy, 500)) {
      proxy.blackHole();
      // Written from another thread: once the windows fill, the write blocks.
      CompletableFuture<Void> sent =
          CompletableFuture.runAsync(
              () -> {
                try {
                  client.getOutputStream().write(payload);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketTimeoutException.class);
      assertThat(echo.received()).isZero();

      proxy.resume();
      client.setSoTimeout(5_000);
      assertThat(client.getInputStream().readNBytes(payload.length)).isEqualTo(payload);
      sent.get(2, TimeUnit.SECONDS);
      eventually(() -> proxy.forwardedBytes() == 2L * payload.length);
    }
  }

  @Test
  void cut_all_resets_every_connection_even_black_holed_ones_and_accepts_new_ones()
      throws Exception {
    try (TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
        Socket flowing = connect(proxy, 2_000)) {
      send(flowing, "a");
      assertThat(receive(flowing, 1)).isEqualTo("a");
      proxy.blackHole();
      try (Socket held = connect(proxy, 2_000)) {
        eventually(() -> proxy.connections() == 2);

        proxy.cutAll();
        assertThat(proxy.connections()).isZero();
        assertThatThrownBy(() -> flowing.getInputStream().read())
            .isInstanceOf(SocketException.class)
            .hasMessageContaining("reset");
        assertThatThrownBy(() -> held.getInputStream().read())
            .isInstanceOf(SocketException.class)
            .hasMessageContaining("reset");
      }

      proxy.resume();
      try (Socket again = connect(proxy, 2_000)) {
        send(again, "b");
        assertThat(receive(again, 1)).isEqualTo("b");
      }
    }
  }

  @Test
  void close_stops_listening_and_ends_every_proxy_thread() throws Exception {
    TcpProxy proxy = TcpProxy.start("127.0.0.1", echo.port());
    int port = proxy.port();
    try (Socket flowing = connect(proxy, 2_000)) {
      send(flowing, "x");
      assertThat(receive(flowing, 1)).isEqualTo("x");
      proxy.blackHole();
      try (Socket held = connect(proxy, 2_000)) {
        send(flowing, "y");
        eventually(() -> proxy.connections() == 2);

        proxy.close();
        assertThat(proxyThreads()).isEmpty();
        assertThatThrownBy(() -> held.getInputStream().read()).isInstanceOf(SocketException.class);
      }
    } finally {
      proxy.close();
    }
    assertThatThrownBy(() -> new Socket("127.0.0.1", port).close())
        .isInstanceOf(ConnectException.class);
  }

  private static List<String> proxyThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .map(Thread::getName)
        .filter(name -> name.startsWith("tcp-proxy"))
        .toList();
  }

  private static Socket connect(TcpProxy proxy, int readTimeoutMillis) throws IOException {
    Socket socket = new Socket(proxy.host(), proxy.port());
    socket.setSoTimeout(readTimeoutMillis);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    socket.getOutputStream().write(text.getBytes(US_ASCII));
  }

  private static String receive(Socket socket, int length) throws IOException {
    return new String(socket.getInputStream().readNBytes(length), US_ASCII);
  }

  private static void eventually(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition not met within 2 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }

  /** Echoes every byte back and closes on EOF; tests may also write on its side directly. */
  private static final class EchoServer implements AutoCloseable {
    private final ServerSocket listener;
    private final BlockingQueue<Socket> accepted = new LinkedBlockingQueue<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicLong received = new AtomicLong();

    EchoServer() throws IOException {
      listener = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
      Thread acceptor = new Thread(this::acceptLoop, "echo-accept");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return listener.getLocalPort();
    }

    long received() {
      return received.get();
    }

    Socket nextAccepted() throws InterruptedException {
      Socket socket = accepted.poll(2, TimeUnit.SECONDS);
      assertThat(socket).as("echo server accepted a connection").isNotNull();
      return socket;
    }

    private void acceptLoop() {
      try {
        while (true) {
          Socket socket = listener.accept();
          sockets.add(socket);
          accepted.add(socket);
          Thread echoer = new Thread(() -> echo(socket), "echo-" + socket.getPort());
          echoer.setDaemon(true);
          echoer.start();
        }
      } catch (IOException e) {
        // Closed by close().
      }
    }

    private void echo(Socket socket) {
      try (socket) {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
          received.addAndGet(n);
          out.write(buffer, 0, n);
        }
      } catch (IOException e) {
        // Reset by the proxy: the connection is over either way.
      }
    }

    @Override
    public void close() {
      try {
        listener.close();
        for (Socket socket : sockets) {
          socket.close();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
