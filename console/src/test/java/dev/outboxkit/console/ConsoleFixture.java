package dev.outboxkit.console;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.console.standalone.StandaloneConsole;
import dev.outboxkit.jdbc.Outbox;
import dev.outboxkit.jdbc.OutboxSchema;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * A database with the outbox and audit tables and a standalone console on it, with three users:
 * {@code viewer} (view), {@code operator} (view, operate, payloads) and {@code nobody} (no role).
 * Rows are appended with {@link Outbox#append} and then moved to the state a test needs with SQL,
 * as a relay (or another tool) would have left them.
 */
final class ConsoleFixture implements AutoCloseable {
  static final String PASSWORD = "correct horse battery staple";

  final TestDatabase db;
  final StandaloneConsole console;
  final String base;

  ConsoleFixture(Flavor flavor) throws Exception {
    db = TestDatabases.create(flavor, "console");
    try (Connection c = db.connect()) {
      OutboxSchema.create(c);
      ConsoleSchema.create(c);
    }
    String hash = StandaloneConsole.hashPassword(PASSWORD.toCharArray());
    Path users = Files.createTempFile(Path.of("target"), "console-users", ".txt");
    Files.writeString(
        users,
        "# test users\nviewer:view:"
            + hash
            + "\noperator:view,operate,payloads:"
            + hash
            + "\nnobody::"
            + hash
            + "\n",
        StandardCharsets.UTF_8);
    console =
        StandaloneConsole.start(
            db.dataSource(), users, new InetSocketAddress("127.0.0.1", 0), null);
    base = "http://127.0.0.1:" + console.port();
  }

  ConsoleClient as(String user) {
    return new ConsoleClient(base, user, PASSWORD);
  }

  /** {@return the new event's id} Appended PENDING, due now. */
  UUID append(String aggregateId, String type, String destination, String payload)
      throws SQLException {
    OutboxEvent.Builder b = OutboxEvent.builder("Order", aggregateId, type).payload(payload);
    if (destination != null) {
      b.destination(destination);
    }
    OutboxEvent e = b.build();
    try (Connection c = db.connect()) {
      c.setAutoCommit(false);
      Outbox.append(c, e);
      c.commit();
    }
    return e.id();
  }

  /** Moves a row as the relay would have: {@code set} is an SQL SET list. */
  void update(UUID id, String set, Object... values) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement("UPDATE outbox_event SET " + set + " WHERE id = ?")) {
      int i = 1;
      for (Object v : values) {
        ps.setObject(i++, v);
      }
      bindId(c, ps, i, id);
      if (ps.executeUpdate() != 1) {
        throw new AssertionError("no row " + id);
      }
    }
  }

  /** DEAD now, with this error. */
  void dead(UUID id, String error) throws SQLException {
    update(id, "status = 'DEAD', attempts = 3, last_error = ?, published_at = " + now(), error);
  }

  String now() {
    switch (db.flavor()) {
      case POSTGRES:
        return "CURRENT_TIMESTAMP";
      case H2:
        return "CURRENT_TIMESTAMP";
      default:
        return "UTC_TIMESTAMP(6)";
    }
  }

  String inSeconds(int s) {
    switch (db.flavor()) {
      case POSTGRES:
      case H2:
        return "CURRENT_TIMESTAMP + INTERVAL '" + s + "' SECOND";
      default:
        return "UTC_TIMESTAMP(6) + INTERVAL " + s + " SECOND";
    }
  }

  String status(UUID id) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement("SELECT status FROM outbox_event WHERE id = ?")) {
      bindId(c, ps, 1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  long count(String where) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM outbox_event WHERE " + where)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  void execute(String sql) throws SQLException {
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private void bindId(Connection c, PreparedStatement ps, int i, UUID id) throws SQLException {
    if (db.flavor() == Flavor.POSTGRES || db.flavor() == Flavor.H2) {
      ps.setObject(i, id);
    } else {
      ps.setString(i, id.toString());
    }
  }

  @Override
  public void close() {
    console.close();
    db.close();
  }
}
