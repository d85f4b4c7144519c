package dev.outboxkit.faults;

import dev.outboxkit.OutboxEvent;
import dev.outboxkit.jdbc.Outbox;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Child JVM of {@link CommitCrashTest}: an application that runs business transactions in a tight
 * loop until it is SIGKILLed. Each transaction inserts one to three {@code payment} rows and, on
 * the same connection, one outbox event per row whose aggregate id is the row's id; then commits.
 *
 * <p>Options: the database ({@link DbCoordinates}); {@code --run=<tag>} (prefix of every row id);
 * {@code --pause=NONE|BEFORE_COMMIT|AFTER_COMMIT} and {@code --pause-at=<tx>}: where to stop and
 * wait for the kill. Protocol: {@code READY}, then per transaction {@code COMMITTING <tx> <rows>}
 * right before {@code commit()} and {@code COMMITTED <tx> <rows>} right after it returned.
 */
public final class CommitCrashChild {
  private CommitCrashChild() {}

  public static void main(String[] args) throws Exception {
    Child.exitWithParent();
    Map<String, String> options = Child.options(args);
    DbCoordinates db = DbCoordinates.from(options);
    String run = Child.required(options, "run");
    String pause = options.getOrDefault("pause", "NONE");
    int pauseAt = Integer.parseInt(options.getOrDefault("pause-at", "-1"));
    Random random = new Random(run.hashCode());
    try (Connection c = db.connect();
        PreparedStatement payment =
            c.prepareStatement("INSERT INTO payment (id, amount) VALUES (?, ?)")) {
      c.setAutoCommit(false);
      Child.emit("READY");
      for (int tx = 0; ; tx++) {
        int rows = 1 + random.nextInt(3);
        List<OutboxEvent> events = new ArrayList<>(rows);
        for (int i = 0; i < rows; i++) {
          String id = run + "-" + tx + "-" + i;
          int amount = random.nextInt(10_000);
          payment.setString(1, id);
          payment.setInt(2, amount);
          payment.addBatch();
          events.add(
              OutboxEvent.builder("Payment", id, "PaymentTaken")
                  .payload("{\"id\":\"" + id + "\",\"amount\":" + amount + "}")
                  .build());
        }
        payment.executeBatch();
        // Both append paths: one statement per event, and one JDBC batch.
        if (tx % 2 == 0) {
          for (OutboxEvent e : events) {
            Outbox.append(c, e);
          }
        } else {
          Outbox.appendAll(c, events);
        }
        if (pause.equals("BEFORE_COMMIT") && tx == pauseAt) {
          Child.pauseForKill("BEFORE_COMMIT " + tx + " " + rows);
        }
        Child.emit("COMMITTING " + tx + " " + rows);
        c.commit();
        Child.emit("COMMITTED " + tx + " " + rows);
        if (pause.equals("AFTER_COMMIT") && tx == pauseAt) {
          Child.pauseForKill("AFTER_COMMIT " + tx + " " + rows);
        }
      }
    }
  }
}
