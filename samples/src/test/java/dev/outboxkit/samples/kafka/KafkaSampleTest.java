package dev.outboxkit.samples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxkit.jdbc.EventStatus;
import dev.outboxkit.jdbc.OutboxAdmin;
import dev.outboxkit.kafka.KafkaEvents;
import dev.outboxkit.testkit.Flavor;
import dev.outboxkit.testkit.TestDatabase;
import dev.outboxkit.testkit.TestDatabases;
import dev.outboxkit.testkit.kafka.KafkaTestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The Kafka sample's main against a real KRaft broker in this JVM. */
class KafkaSampleTest {
  private static final String TOPIC = "outbox.event.Order";
  private static final Pattern APPENDED =
      Pattern.compile("appended OrderPlaced \\S+, event id (\\S+)");

  private final ByteArrayOutputStream output = new ByteArrayOutputStream();

  @Test
  void run_publishes_the_events_to_the_broker_given_on_the_command_line_and_reads_them_back()
      throws Exception {
    int status = run(KafkaTestBroker.shared().bootstrapServers());

    assertThat(status).as(printed()).isZero();
    Set<UUID> appended = appendedIds();
    assertThat(appended).hasSize(3);
    assertThat(idsOnTopic()).containsAll(appended);
    assertThat(printed())
        .contains("3 of 3 events came back from Kafka")
        .containsPattern("\\[relay\\] +published OrderPlaced")
        .containsPattern("\\[consumer\\] received key=order-\\S+ id=" + appended.iterator().next());
  }

  @Test
  void run_uses_the_database_given_on_the_command_line() throws Exception {
    try (TestDatabase db = TestDatabases.create(Flavor.POSTGRES, "kafkasample")) {
      int status =
          run(KafkaTestBroker.shared().bootstrapServers(), db.jdbcUrl(), db.user(), db.password());

      assertThat(status).as(printed()).isZero();
      Set<UUID> appended = appendedIds();
      assertThat(idsOnTopic()).containsAll(appended);
      assertThat(OutboxAdmin.create(db.dataSource()).count(EventStatus.PUBLISHED)).isEqualTo(3);
      assertThat(idsIn(db)).isEqualTo(appended);
    }
  }

  @Test
  void run_prints_usage_and_answers_2_without_a_broker_address() throws Exception {
    assertThat(run()).isEqualTo(2);
    assertThat(printed()).startsWith("usage: KafkaSample <bootstrap-servers>");
  }

  private int run(String... args) throws Exception {
    try (PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8)) {
      return KafkaSample.run(args, out);
    }
  }

  private String printed() {
    return output.toString(StandardCharsets.UTF_8);
  }

  private Set<UUID> appendedIds() {
    Set<UUID> ids = new HashSet<>();
    Matcher m = APPENDED.matcher(printed());
    while (m.find()) {
      ids.add(UUID.fromString(m.group(1)));
    }
    return ids;
  }

  private static Set<UUID> idsOnTopic() {
    Set<UUID> ids = new HashSet<>();
    List<ConsumerRecord<String, byte[]>> records = KafkaTestBroker.shared().readAll(TOPIC);
    for (ConsumerRecord<String, byte[]> record : records) {
      ids.add(KafkaEvents.eventId(record).orElseThrow());
    }
    return ids;
  }

  private static Set<UUID> idsIn(TestDatabase db) throws Exception {
    Set<UUID> ids = new HashSet<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id FROM outbox_event")) {
      while (rs.next()) {
        ids.add(UUID.fromString(rs.getString(1)));
      }
    }
    return ids;
  }
}
