package dev.outboxkit.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.samples.servlet.WebhookReceiver;
import dev.outboxkit.testkit.Await;
import dev.outboxkit.testkit.Sql;
import dev.outboxkit.testkit.TestDatabase;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;

/**
 * What the shop samples' contract tests (Jetty, Tomcat, EJB) check on a {@link ShopDatabase} after
 * placing orders, whatever placed them: the outbox's promise, seen from the table and the receiver.
 */
public final class ShopChecks {
  private ShopChecks() {}

  /** Every order's event reaches the receiver and is recorded PUBLISHED; the orders are stored. */
  public static void assertPublished(
      TestDatabase db, WebhookReceiver receiver, List<String> orderIds, Duration patience)
      throws SQLException {
    Await.until(
        () -> receiver.received.size() >= orderIds.size(), patience, "every event delivered");
    assertThat(receiver.received.values()).containsExactlyInAnyOrderElementsOf(orderIds);
    Await.until(
        () -> OutboxAdmin.create(db.dataSource()).count(EventStatus.PUBLISHED) == orderIds.size(),
        patience,
        "every event PUBLISHED");
    assertThat(count(db, "SELECT COUNT(*) FROM orders")).isEqualTo(orderIds.size());
  }

  /**
   * After "o-big" (two kettles of the one in stock) was refused and "o-small" (the one) placed: the
   * refused order rolled back with its event, and only the placed one's event went out.
   */
  public static void assertOnlyTheSmallKettleOrderCommitted(
      TestDatabase db, WebhookReceiver receiver, Duration patience) throws SQLException {
    Await.until(
        () -> receiver.received.containsValue("o-small"), patience, "the committed order's event");
    assertThat(count(db, "SELECT COUNT(*) FROM orders WHERE id = 'o-big'")).isZero();
    assertThat(count(db, "SELECT COUNT(*) FROM outbox_event WHERE aggregate_id = 'o-big'"))
        .isZero();
    assertThat(count(db, "SELECT COUNT(*) FROM outbox_event")).isEqualTo(1);
    assertThat(receiver.received).doesNotContainValue("o-big");
    assertThat(count(db, "SELECT available FROM stock WHERE sku = 'kettle'")).isZero();
  }

  private static long count(TestDatabase db, String sql) throws SQLException {
    return Sql.queryLong(db.dataSource(), sql);
  }
}
