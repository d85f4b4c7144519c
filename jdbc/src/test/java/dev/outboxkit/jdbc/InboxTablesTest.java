package dev.outboxkit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.OutboxConfigurationException;
import org.junit.jupiter.api.Test;

/** How the inbox's two tables are named: in the shipped DDL and on the builder. */
class InboxTablesTest {
  @Test
  void the_version_table_is_named_after_the_inbox_table_in_its_schema() {
    String ddl = OutboxSchema.inboxDdl(Dialect.POSTGRESQL, "app.billing_inbox");

    assertThat(ddl)
        .contains("CREATE TABLE IF NOT EXISTS app.billing_inbox (")
        .contains("CONSTRAINT billing_inbox_pkey PRIMARY KEY (consumer, event_id)")
        .contains("CREATE TABLE IF NOT EXISTS app.billing_inbox_version (")
        .contains("CONSTRAINT billing_inbox_version_pkey PRIMARY KEY")
        .doesNotContain("outbox_inbox");
  }

  @Test
  void a_version_table_of_another_name_is_renamed_apart_from_the_inbox_table() {
    // A name that starts like the inbox placeholder must not be renamed a second time.
    String ddl =
        OutboxSchema.inboxDdl(Dialect.MYSQL.preset(), "billing_inbox", "outbox_inbox_seen");

    assertThat(ddl)
        .contains("CREATE TABLE IF NOT EXISTS billing_inbox (")
        .contains("CREATE TABLE IF NOT EXISTS outbox_inbox_seen (")
        .doesNotContain("billing_inbox_seen", "billing_inbox_version");
  }

  @Test
  void every_preset_ships_the_version_table_in_its_inbox_ddl() {
    for (Dialect d : Dialect.values()) {
      assertThat(OutboxSchema.inboxDdl(d, "outbox_inbox"))
          .as(d.name())
          .contains("outbox_inbox_version (")
          .contains("version ")
          .contains("updated_at ");
    }
  }

  @Test
  void an_inbox_table_name_too_long_to_name_its_version_table_after_asks_for_one() {
    String longest = "i".repeat(50);

    assertThatThrownBy(() -> Inbox.builder().table(longest).build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("is too long to name its version table")
        .hasMessageContaining("Inbox.Builder.versionTable(...)");
    assertThat(Inbox.builder().table(longest).versionTable("inbox_versions").build()).isNotNull();
  }

  @Test
  void the_version_table_cannot_be_the_inbox_table() {
    assertThatThrownBy(() -> Inbox.builder().table("inbox").versionTable("inbox").build())
        .isInstanceOf(OutboxConfigurationException.class)
        .hasMessageContaining("need a table of their own");
  }
}
