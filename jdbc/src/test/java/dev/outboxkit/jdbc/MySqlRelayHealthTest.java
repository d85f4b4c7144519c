package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.SendResult;
import dev.outboxkit.Transport;
import dev.outboxkit.testkit.Flavor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** MySQL's own health check, beside {@link RelayHealthContractTest}'s run on MySQL. */
class MySqlRelayHealthTest extends RelayDatabaseTest {
  @Override
  protected Flavor flavor() {
    return Flavor.MYSQL;
  }

  /**
   * The dialect's lock-timeout code (MySQL's 1205) turns the driver's terse message into what to
   * look for. MySQL, because its statement limit covers only SELECTs, so an UPDATE's lock wait runs
   * out by the lock timeout alone; PostgreSQL and MariaDB bound both at the same instant and report
   * the statement timeout.
   */
  @Test
  void a_lock_wait_that_ran_out_is_said_so_naming_the_timeout() throws SQLException {
    append(1, i -> event("locked", i));
    try (Connection holder = transaction()) {
      // While the event is out, another transaction locks its row and keeps it.
      Transport lockingTheRow =
          message -> {
            try (Statement s = holder.createStatement()) {
              s.execute("SELECT seq FROM outbox_event FOR UPDATE");
            } catch (SQLException e) {
              throw new IllegalStateException(e);
            }
            return SendResult.delivered();
          };
      try (OutboxRelay relay =
          relay(lockingTheRow, "locked").statementTimeout(Duration.ofSeconds(1)).build()) {
        assertThatThrownBy(relay::runOnce)
            .isInstanceOf(OutboxStorageException.class)
            .hasStackTraceContaining(
                "a lock wait ran out: another transaction holds rows of outbox_event (or the"
                    + " whole table) longer than the database's lock timeout (statementTimeout,"
                    + " PT1S, where the dialect bounds transactions)");
      } finally {
        holder.rollback();
      }
    }
  }
}
