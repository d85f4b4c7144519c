package dev.outboxkit.loggingcheck;

import dev.outboxkit.SendResult;
import dev.outboxkit.jdbc.OutboxRelay;
import dev.outboxkit.jdbc.OutboxSchema;
import java.sql.Connection;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The application of {@link LoggingBindingTest}'s child JVMs: builds one relay on an in-memory H2
 * database, whose constructor logs its settings at INFO, and closes it. It names no slf4j type, so
 * it runs beside any binding.
 */
public final class RelayLogsOnce {
  private RelayLogsOnce() {}

  public static void main(String[] args) throws Exception {
    JdbcDataSource dataSource = new JdbcDataSource();
    dataSource.setURL("jdbc:h2:mem:logging;DB_CLOSE_DELAY=-1");
    try (Connection c = dataSource.getConnection()) {
      OutboxSchema.create(c);
    }
    OutboxRelay relay =
        OutboxRelay.builder(dataSource, message -> SendResult.delivered())
            .name("logging-check")
            .build();
    relay.close();
    System.out.println("built");
  }
}
