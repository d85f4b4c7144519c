package dev.outboxkit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import dev.outboxkit.jdbc.Dialect;
import dev.outboxkit.jdbc.OutboxSchema;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

class TableNameTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "x; drop table y",
        "a.b.c",
        "",
        "1abc",
        "a-b",
        "\"quoted\"",
        "a b",
        "a23456789012345678901234567890123456789012345678901"
      })
  void refuses_anything_but_plain_identifiers(String name) {
    assertThatThrownBy(() -> TableName.of(name)).isInstanceOf(OutboxConfigurationException.class);
  }

  @ParameterizedTest
  @EnumSource(Dialect.class)
  void ddl_takes_the_schema_qualified_name_for_tables_and_the_bare_name_for_indexes(Dialect d) {
    String ddl = OutboxSchema.ddl(d, "billing.events");
    // Oracle and SQL Server have no IF NOT EXISTS: OutboxSchema skips what exists by error code.
    assertThat(ddl).containsPattern("CREATE TABLE (IF NOT EXISTS )?billing\\.events \\(");
    assertThat(ddl)
        .contains("events_id_key")
        .doesNotContain("billing.events_")
        .doesNotContain("outbox_event");
  }
}
