package dev.outboxkit.benchmarks;

import dev.outboxkit.console.ConsoleExchange;
import dev.outboxkit.console.ConsolePermission;
import dev.outboxkit.console.ConsoleSchema;
import dev.outboxkit.console.OutboxConsole;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.EventStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The operator console's pages on a big table: 1,000,000 PUBLISHED, 100,000 PENDING and 10,000 DEAD
 * rows. Each page is answered in process, rendering included (no HTTP), as a signed-in operator
 * asks for it. Target: under 200 ms per page.
 */
final class ConsoleScenario implements Scenario {
  private static final String TABLE = "outbox_event";
  private static final int AGGREGATES = 10_000;
  private static final int SAMPLES = 10;

  @Override
  public String name() {
    return "console";
  }

  @Override
  public void run(BenchRun run) throws Exception {
    DataSource ds = run.db().dataSource();
    int published = run.quick() ? 100_000 : 1_000_000;
    int pending = run.quick() ? 10_000 : 100_000;
    int dead = run.quick() ? 1_000 : 10_000;
    try {
      load(run, ds, published, pending, dead);
      OutboxConsole console =
          OutboxConsole.builder(ds)
              .access(caller -> EnumSet.allOf(ConsolePermission.class))
              .build();
      Page overview = new Page("GET", "/api/overview", null);
      Matcher token =
          Pattern.compile("\"csrfToken\":\"([^\"]+)\"").matcher(overview.answer(console));
      if (!token.find()) {
        throw new IllegalStateException("no csrfToken in /api/overview");
      }
      String deadId;
      try (Connection c = ds.getConnection();
          Statement s = c.createStatement();
          java.sql.ResultSet rs =
              s.executeQuery(
                  "SELECT id FROM "
                      + TABLE
                      + " WHERE seq = (SELECT MIN(seq) FROM "
                      + TABLE
                      + " WHERE status = 'DEAD')")) {
        rs.next();
        deadId = rs.getString(1);
      }
      List<Page> pages =
          List.of(
              new Page("GET", "/", null),
              overview,
              new Page("GET", "/failures", null),
              new Page("GET", "/failures/group?reason=HTTP%20503%20from%20%3Curl%3E", null),
              new Page("GET", "/events/" + deadId, null),
              new Page("GET", "/aggregates?type=Order&id=agg-7", null),
              new Page("GET", "/audit", null),
              new Page("POST", "/replay?destination=crm", token.group(1)));
      List<String[]> rows = new ArrayList<>();
      rows.add(new String[] {"page", "median (ms)", "slowest of " + SAMPLES + " (ms)", "bytes"});
      for (Page page : pages) {
        page.answer(console); // warm-up, discarded
        Stats ms = new Stats();
        double slowest = 0;
        int bytes = 0;
        for (int i = 0; i < SAMPLES; i++) {
          long start = System.nanoTime();
          bytes = page.answer(console).length();
          double took = (System.nanoTime() - start) / 1e6;
          ms.add(took);
          slowest = Math.max(slowest, took);
        }
        rows.add(
            new String[] {
              page.method + " " + page.path,
              String.format("%.1f", ms.median()),
              String.format("%.1f", slowest),
              String.format("%,d", bytes)
            });
      }
      run.report()
          .section(
              "Operator console — " + run.flavor(),
              String.format(
                  "Each page of the console answered in process (statements and HTML or JSON,"
                      + " no HTTP) on a table of %,d PUBLISHED, %,d PENDING (three destinations,"
                      + " two tenants) and %,d DEAD rows (one reason group, every row its own URL)"
                      + " over %,d aggregates, analyzed after loading. %d samples after a"
                      + " discarded one. The last row is a replay's dry run over every DEAD row"
                      + " of one destination. Target: under 200 ms per page.",
                  published, pending, dead, AGGREGATES, SAMPLES),
              rows);
    } finally {
      EventLoader.truncate(ds, TABLE);
    }
  }

  private static void load(BenchRun run, DataSource ds, int published, int pending, int dead)
      throws Exception {
    EventLoader.insert(ds, run.dialect(), TABLE, 1, published, AGGREGATES, EventStatus.PUBLISHED);
    EventLoader.insert(
        ds, run.dialect(), TABLE, published + 1L, pending, AGGREGATES, EventStatus.PENDING);
    EventLoader.insert(
        ds,
        run.dialect(),
        TABLE,
        published + pending + 1L,
        dead,
        AGGREGATES,
        EventStatus.PUBLISHED);
    boolean pg = run.dialect() == Dialect.POSTGRESQL;
    String now = pg ? "now()" : "UTC_TIMESTAMP(6)";
    String url =
        pg
            ? "'HTTP 503 from https://crm.example/orders/' || seq"
            : "CONCAT('HTTP 503 from https://crm.example/orders/', seq)";
    try (Connection c = ds.getConnection();
        Statement s = c.createStatement()) {
      ConsoleSchema.create(c);
      s.execute(
          "UPDATE "
              + TABLE
              + " SET destination = CASE MOD(seq, 3) WHEN 0 THEN 'crm' WHEN 1 THEN 'billing'"
              + " ELSE 'search' END, tenant = CASE MOD(seq, 2) WHEN 0 THEN 'eu' ELSE 'us' END"
              + " WHERE seq > "
              + published);
      s.execute(
          "UPDATE "
              + TABLE
              + " SET status = 'DEAD', attempts = 10, published_at = "
              + now
              + ", last_error = "
              + url
              + " WHERE seq > "
              + (published + (long) pending));
    }
    EventLoader.analyze(ds, run.dialect(), TABLE);
  }

  /** One request to the console, answered in process. */
  private static final class Page implements ConsoleExchange {
    final String method;
    final String path;
    private final String token;
    private final Map<String, String> query = new HashMap<>();
    private final String route;
    private byte[] body;

    Page(String method, String path, String token) {
      this.method = method;
      this.path = path;
      this.token = token;
      int q = path.indexOf('?');
      this.route = q < 0 ? path : path.substring(0, q);
      if (q >= 0) {
        for (String pair : path.substring(q + 1).split("&")) {
          String[] kv = pair.split("=", 2);
          query.put(kv[0], java.net.URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
        }
      }
    }

    String answer(OutboxConsole console) throws IOException {
      body = null;
      console.handle(this);
      return new String(body, StandardCharsets.UTF_8);
    }

    @Override
    public Optional<String> name() {
      return Optional.of("bench");
    }

    @Override
    public boolean isInRole(String role) {
      return true;
    }

    @Override
    public String method() {
      return method;
    }

    @Override
    public String path() {
      return route;
    }

    @Override
    public String parameter(String name) {
      return query.get(name);
    }

    @Override
    public String header(String name) {
      return "X-CSRF-Token".equals(name) ? token : null;
    }

    @Override
    public String origin() {
      return "http://127.0.0.1";
    }

    @Override
    public String mountPath() {
      return "";
    }

    @Override
    public void respond(int status, Map<String, String> headers, byte[] answer) {
      if (status != 200) {
        throw new IllegalStateException(method + " " + path + " answered " + status);
      }
      this.body = answer;
    }
  }
}
