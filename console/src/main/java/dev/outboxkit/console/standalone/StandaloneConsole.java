package dev.outboxkit.console.standalone;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.outboxkit.console.ConsoleAccess;
import dev.outboxkit.console.ConsoleExchange;
import dev.outboxkit.console.OutboxConsole;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

/**
 * The console on the JDK's HTTP server, beside the application, with only database access: for
 * teams that cannot redeploy. Users sign in with HTTP Basic against a users file; it listens on
 * 127.0.0.1 unless told otherwise (put TLS in front of it before exposing it further).
 *
 * <pre>
 * java -cp outboxkit-console.jar:outboxkit-jdbc.jar:outboxkit-api.jar:encoder.jar:slf4j-api.jar:postgresql.jar \
 *   dev.outboxkit.console.standalone.StandaloneConsole \
 *   --jdbc-url 'jdbc:postgresql://db/orders?user=outbox_console' --users console-users.txt --port 8090
 * </pre>
 *
 * <p>Options (or environment variables): {@code --jdbc-url} ({@code OUTBOXKIT_CONSOLE_JDBC_URL}),
 * {@code --users} ({@code OUTBOXKIT_CONSOLE_USERS}), {@code --port} (8090), {@code --bind}
 * (127.0.0.1), {@code --table} ({@code outbox_event}); the database password may come from {@code
 * OUTBOXKIT_CONSOLE_JDBC_USER} and {@code OUTBOXKIT_CONSOLE_JDBC_PASSWORD}. {@code --hash-password}
 * reads a password from the console and prints the hash for the users file.
 */
public final class StandaloneConsole implements AutoCloseable {
  private static final int MAX_BODY = 64 * 1024;
  private static final int MAX_CACHED_LOGINS = 1000;

  private final HttpServer server;
  private final ExecutorService threads;
  private final OutboxConsole console;
  private final Users users;
  private final Map<String, Users.User> signedIn = new HashMap<>();

  private StandaloneConsole(
      DataSource dataSource, Users users, InetSocketAddress address, String table)
      throws IOException {
    this.users = users;
    OutboxConsole.Builder b =
        OutboxConsole.builder(dataSource)
            .access(ConsoleAccess.roles("view", "operate", "payloads"));
    if (table != null) {
      b.table(table);
    }
    this.console = b.build();
    this.server = HttpServer.create(address, 0);
    this.threads =
        Executors.newFixedThreadPool(
            4,
            r -> {
              Thread t = new Thread(r, "outboxkit-console-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(threads);
    server.createContext("/", this::serve);
    server.start();
  }

  /**
   * {@return a console serving until closed}
   *
   * @param dataSource where the outbox table and the audit table live
   * @param usersFile lines of {@code name:roles:hash}
   * @param address where to listen; port 0 for any free one
   * @param table the outbox table, or null for {@code outbox_event}
   * @throws IOException if the users file cannot be read or the address cannot be bound
   */
  public static StandaloneConsole start(
      DataSource dataSource, Path usersFile, InetSocketAddress address, String table)
      throws IOException {
    return new StandaloneConsole(dataSource, Users.read(usersFile), address, table);
  }

  /**
   * {@return the line to put after {@code name:roles:} in the users file for this password} Salted
   * PBKDF2 with HMAC-SHA256, as {@code --hash-password} prints it.
   *
   * @param password the password
   */
  public static String hashPassword(char[] password) {
    return Users.hash(password);
  }

  /** {@return the port it listens on} */
  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }

  private void serve(HttpExchange http) throws IOException {
    try {
      Users.User user = signIn(http.getRequestHeaders().getFirst("Authorization"));
      if (user == null) {
        http.getResponseHeaders()
            .set("WWW-Authenticate", "Basic realm=\"OutboxKit console\", charset=\"UTF-8\"");
        http.sendResponseHeaders(401, -1);
        return;
      }
      Map<String, String> params = new LinkedHashMap<>();
      parse(http.getRequestURI().getRawQuery(), params);
      String type = http.getRequestHeaders().getFirst("Content-Type");
      if ("POST".equals(http.getRequestMethod())
          && type != null
          && type.startsWith("application/x-www-form-urlencoded")) {
        byte[] body = readBody(http.getRequestBody());
        if (body == null) {
          http.sendResponseHeaders(413, -1);
          return;
        }
        parse(new String(body, StandardCharsets.US_ASCII), params);
      }
      console.handle(new Exchange(http, user, params));
    } finally {
      http.close();
    }
  }

  /** Basic auth; a verified header is remembered, so PBKDF2 runs once per user, not per page. */
  private Users.User signIn(String authorization) {
    if (authorization == null || !authorization.startsWith("Basic ")) {
      return null;
    }
    String key = sha256(authorization);
    synchronized (signedIn) {
      Users.User known = signedIn.get(key);
      if (known != null) {
        return known;
      }
    }
    String decoded;
    try {
      decoded =
          new String(
              Base64.getDecoder().decode(authorization.substring(6).trim()),
              StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return null;
    }
    int colon = decoded.indexOf(':');
    if (colon < 0) {
      return null;
    }
    Users.User user = users.authenticate(decoded.substring(0, colon), decoded.substring(colon + 1));
    if (user != null) {
      synchronized (signedIn) {
        if (signedIn.size() >= MAX_CACHED_LOGINS) {
          signedIn.clear();
        }
        signedIn.put(key, user);
      }
    }
    return user;
  }

  private static String sha256(String s) {
    try {
      return Base64.getEncoder()
          .encodeToString(
              MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] readBody(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    int n;
    while ((n = in.read(buf)) > 0) {
      out.write(buf, 0, n);
      if (out.size() > MAX_BODY) {
        return null;
      }
    }
    return out.toByteArray();
  }

  /** First value wins, as with a servlet's getParameter. */
  private static void parse(String raw, Map<String, String> into) {
    if (raw == null || raw.isEmpty()) {
      return;
    }
    for (String pair : raw.split("&")) {
      int eq = pair.indexOf('=');
      String name =
          URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value =
          eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      into.putIfAbsent(name, value);
    }
  }

  /** An exchange of the JDK server as the console sees it. */
  private static final class Exchange implements ConsoleExchange {
    private final HttpExchange http;
    private final Users.User user;
    private final Map<String, String> params;

    Exchange(HttpExchange http, Users.User user, Map<String, String> params) {
      this.http = http;
      this.user = user;
      this.params = params;
    }

    @Override
    public Optional<String> name() {
      return Optional.of(user.name);
    }

    @Override
    public boolean isInRole(String role) {
      return user.roles.contains(role);
    }

    @Override
    public String method() {
      return http.getRequestMethod();
    }

    @Override
    public String path() {
      return http.getRequestURI().getPath();
    }

    @Override
    public String parameter(String name) {
      return params.get(name);
    }

    @Override
    public String header(String name) {
      return http.getRequestHeaders().getFirst(name);
    }

    @Override
    public String origin() {
      String host = http.getRequestHeaders().getFirst("Host");
      return "http://"
          + (host != null
              ? host
              : http.getLocalAddress().getHostString() + ":" + http.getLocalAddress().getPort());
    }

    @Override
    public String mountPath() {
      return "";
    }

    @Override
    public void respond(int status, Map<String, String> headers, byte[] body) throws IOException {
      headers.forEach((k, v) -> http.getResponseHeaders().set(k, v));
      boolean head = "HEAD".equals(http.getRequestMethod());
      http.sendResponseHeaders(status, head || body.length == 0 ? -1 : body.length);
      if (!head && body.length > 0) {
        try (OutputStream out = http.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  /**
   * Runs the console until the process is stopped.
   *
   * @param args {@code --jdbc-url}, {@code --users}, {@code --port}, {@code --bind}, {@code
   *     --table}; or {@code --hash-password}
   * @throws Exception if the options are wrong or the console cannot start
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if ("--hash-password".equals(args[i])) {
        char[] password =
            System.console() != null
                ? System.console().readPassword("password: ")
                : new String(System.in.readAllBytes(), StandardCharsets.UTF_8).trim().toCharArray();
        System.out.println(hashPassword(password));
        return;
      }
      if (!args[i].startsWith("--") || i + 1 == args.length) {
        throw new IllegalArgumentException(
            "options are --name value pairs; " + args[i] + " is not");
      }
      opts.put(args[i].substring(2), args[++i]);
    }
    String url = option(opts, "jdbc-url", "OUTBOXKIT_CONSOLE_JDBC_URL");
    String usersFile = option(opts, "users", "OUTBOXKIT_CONSOLE_USERS");
    if (url == null || usersFile == null) {
      System.err.println(
          "usage: StandaloneConsole --jdbc-url URL --users FILE [--port 8090]"
              + " [--bind 127.0.0.1] [--table outbox_event] | --hash-password");
      System.exit(2);
      return;
    }
    if (!Files.isReadable(Path.of(usersFile))) {
      throw new IllegalArgumentException("cannot read the users file " + usersFile);
    }
    int port = Integer.parseInt(opts.getOrDefault("port", "8090"));
    String bind = opts.getOrDefault("bind", "127.0.0.1");
    DataSource ds =
        new UrlDataSource(
            url,
            System.getenv("OUTBOXKIT_CONSOLE_JDBC_USER"),
            System.getenv("OUTBOXKIT_CONSOLE_JDBC_PASSWORD"));
    StandaloneConsole console =
        start(ds, Path.of(usersFile), new InetSocketAddress(bind, port), opts.get("table"));
    System.out.println("OutboxKit console on http://" + bind + ":" + console.port() + "/");
  }

  private static String option(Map<String, String> opts, String name, String env) {
    String v = opts.get(name);
    return v != null ? v : System.getenv(env);
  }
}
