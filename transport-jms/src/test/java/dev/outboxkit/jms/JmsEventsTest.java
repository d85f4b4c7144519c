package dev.outboxkit.jms;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxkit.jms.internal.ContentTypes;
import jakarta.jms.Message;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.activemq.command.ActiveMQTextMessage;
import org.junit.jupiter.api.Test;

/** The header-name mapping, content-type rules and property readers, without a broker. */
class JmsEventsTest {
  private static final String TOKEN_SYMBOLS = "!#$%&'*+-.^_`|~";

  @Test
  void aggregateVersion_reads_a_long_a_smaller_integer_or_decimal_text() throws Exception {
    assertThat(JmsEvents.aggregateVersion(message(9_000_000_000L))).hasValue(9_000_000_000L);
    assertThat(JmsEvents.aggregateVersion(message(7))).hasValue(7);
    assertThat(JmsEvents.aggregateVersion(message(" 12 "))).hasValue(12);
  }

  @Test
  void aggregateVersion_is_empty_when_the_property_is_absent() throws Exception {
    assertThat(JmsEvents.aggregateVersion(message(null))).isEmpty();
  }

  @Test
  void aggregateVersion_throws_naming_property_and_message_when_value_is_no_version()
      throws Exception {
    for (Object bad : List.<Object>of("v2", "", "1.5", 0L, -3)) {
      Message m = message(bad);
      assertThatThrownBy(() -> JmsEvents.aggregateVersion(m))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("property 'outbox_aggregate_version' of message ID:test-1")
          .hasMessageContaining("not an aggregate version")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  /** An unsent provider message with the version property set to a value of its own type. */
  private static Message message(Object version) throws Exception {
    ActiveMQTextMessage m = new ActiveMQTextMessage();
    m.setJMSMessageID("ID:test-1");
    if (version != null) {
      m.setObjectProperty(JmsEvents.AGGREGATE_VERSION, version);
    }
    return m;
  }

  @Test
  void propertyName_keeps_letters_and_digits_and_turns_dashes_into_underscores() {
    assertThat(JmsEvents.propertyName("correlation-id")).isEqualTo("correlation_id");
    assertThat(JmsEvents.propertyName("traceparent")).isEqualTo("traceparent");
    assertThat(JmsEvents.propertyName("X-Request-Id2")).isEqualTo("X_Request_Id2");
  }

  @Test
  void propertyName_escapes_other_symbols_underscores_dollars_and_a_leading_digit() {
    assertThat(JmsEvents.propertyName("trace.id")).isEqualTo("trace$2Eid");
    assertThat(JmsEvents.propertyName("x_y")).isEqualTo("x$5Fy");
    assertThat(JmsEvents.propertyName("a$b")).isEqualTo("a$24b");
    assertThat(JmsEvents.propertyName("1st")).isEqualTo("$31st");
    assertThat(JmsEvents.propertyName("-")).isEqualTo("_");
  }

  @Test
  void propertyName_escapes_selector_keywords_and_jms_prefixes_in_any_case() {
    assertThat(JmsEvents.propertyName("in")).isEqualTo("$69n");
    assertThat(JmsEvents.propertyName("NULL")).isEqualTo("$4EULL");
    assertThat(JmsEvents.propertyName("Between")).isEqualTo("$42etween");
    assertThat(JmsEvents.propertyName("JMSType")).isEqualTo("$4AMSType");
    assertThat(JmsEvents.propertyName("jmsx-group")).isEqualTo("$6Amsx_group");
    assertThat(JmsEvents.propertyName("inside")).isEqualTo("inside");
  }

  @Test
  void propertyName_gives_legal_distinct_identifiers_that_map_back_for_every_token_character() {
    List<String> names = new java.util.ArrayList<>();
    for (char c = '0'; c <= 'z'; c++) {
      if (Character.isLetterOrDigit(c)) {
        names.add(String.valueOf(c));
        names.add("a" + c + "b");
      }
    }
    for (char c : TOKEN_SYMBOLS.toCharArray()) {
      names.add(String.valueOf(c));
      names.add("a" + c + "b");
      names.add(c + "x" + c);
    }
    names.addAll(List.of("a-x41_", "a_x41_", "a$41", "JMS", "jms-x", "null", "is", "escape"));
    Set<String> properties = new HashSet<>();
    for (String name : names) {
      String property = JmsEvents.propertyName(name);
      assertThat(Character.isJavaIdentifierStart(property.charAt(0))).as(property).isTrue();
      assertThat(property.chars().allMatch(Character::isJavaIdentifierPart)).as(property).isTrue();
      assertThat(property.toUpperCase().startsWith("JMS")).as(property).isFalse();
      assertThat(JmsEvents.headerName(property)).as(property).contains(name);
      assertThat(properties.add(property)).as("unique: " + property).isTrue();
    }
  }

  @Test
  void headerName_is_empty_for_properties_no_header_maps_to() {
    assertThat(JmsEvents.headerName("$61")).isEmpty(); // "a" maps to "a", not "$61"
    assertThat(JmsEvents.headerName("in")).isEmpty(); // the keyword is always escaped
    assertThat(JmsEvents.headerName("JMSXGroupID")).isEmpty();
    assertThat(JmsEvents.headerName("a$zz")).isEmpty();
    assertThat(JmsEvents.headerName("caf\u00e9")).isEmpty();
    assertThat(JmsEvents.headerName("")).isEmpty();
  }

  @Test
  void reserved_properties_are_what_headers_like_outbox_event_id_collide_with() {
    assertThat(JmsEvents.propertyName("outbox-event-id")).isIn(JmsEvents.RESERVED_PROPERTIES);
    assertThat(JmsEvents.propertyName("outbox_event_id")).isNotIn(JmsEvents.RESERVED_PROPERTIES);
  }

  @Test
  void propertyName_refuses_names_that_are_not_printable_ascii() {
    assertThatThrownBy(() -> JmsEvents.propertyName("caf\u00e9"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JmsEvents.propertyName(""))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void textCharset_recognises_textual_types_and_their_charset_parameter() {
    assertThat(ContentTypes.textCharset("application/json")).contains(StandardCharsets.UTF_8);
    assertThat(ContentTypes.textCharset("text/plain; charset=ISO-8859-1"))
        .contains(StandardCharsets.ISO_8859_1);
    assertThat(ContentTypes.textCharset("application/cloudevents+json; charset=\"utf-16\""))
        .contains(StandardCharsets.UTF_16);
    assertThat(ContentTypes.textCharset("Application/XML")).contains(StandardCharsets.UTF_8);
    assertThat(ContentTypes.textCharset("application/avro")).isEmpty();
    assertThat(ContentTypes.textCharset("application/octet-stream")).isEmpty();
    assertThat(ContentTypes.textCharset("text/plain; charset=no-such-charset"))
        .isEqualTo(Optional.empty());
  }
}
