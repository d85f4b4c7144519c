package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.Dialect;
import org.junit.jupiter.api.Test;

class TableCheckTest {
  @Test
  void every_preset_names_a_ddl_file_that_ships_mariadb_sharing_mysqls() {
    for (Dialect preset : Dialect.values()) {
      String file = "/dev/outboxkit/jdbc/schema/" + TableCheck.schemaFile(preset);
      assertThat(TableCheck.class.getResource(file)).as(preset + ": " + file).isNotNull();
    }
    assertThat(TableCheck.schemaFile(Dialect.MARIADB)).isEqualTo("mysql.sql");
    assertThat(TableCheck.schemaFile(Dialect.POSTGRESQL)).isEqualTo("postgresql.sql");
  }
}
