package dev.outboxkit.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The duplicate accounting of the relay scenarios, on protocol lines written by hand. */
class DuplicatesTest {

  @Test
  void a_killed_relays_unrecorded_batch_explains_its_duplicates() {
    RelayLog victim =
        new RelayLog(
            "victim",
            true,
            List.of(
                "100 CLAIMED 1 3 5",
                "101 SENDING 1 a,b,c",
                "102 ACKED_BY_BROKER 1 a,b",
                "103 PAUSED AFTER_BROKER_ACK 1"));
    RelayLog steady = live("110 CLAIMED 1 3 5", "111 SENDING 1 a,b,c", "112 DB_ACKED 1 a,b,c");

    Duplicates d = Duplicates.explain(List.of(victim, steady), Map.of("a", 2, "b", 2, "c", 2));

    assertThat(d.ackedBeforeKill).isEqualTo(2);
    assertThat(d.inFlightAtKill).isEqualTo(1);
    assertThat(d.unexplained).isEmpty();
    assertThat(d.sentAfterRecorded).isEmpty();
  }

  @Test
  void a_live_relays_send_it_never_recorded_explains_its_duplicate() {
    RelayLog first =
        live("100 CLAIMED 1 1 5", "101 SENDING 1 a", "104 ACKED_BY_BROKER 1 ", "105 DB_ACKED 1 ");
    RelayLog second = live("110 CLAIMED 1 1 5", "111 SENDING 1 a", "112 DB_ACKED 1 a");

    Duplicates d = Duplicates.explain(List.of(first, second), Map.of("a", 2));

    assertThat(d.unconfirmedLive).isEqualTo(1);
    assertThat(d.unexplained).isEmpty();
  }

  @Test
  void a_duplicate_every_sender_recorded_is_unexplained() {
    RelayLog first = live("100 CLAIMED 1 1 5", "101 SENDING 1 a", "102 DB_ACKED 1 a");
    RelayLog second = live("100 CLAIMED 1 1 5", "101 SENDING 1 a", "102 DB_ACKED 1 a");

    Duplicates d = Duplicates.explain(List.of(first, second), Map.of("a", 2, "b", 1));

    assertThat(d.unexplained).containsExactly("a");
  }

  @Test
  void a_send_after_the_event_was_recorded_is_caught_unless_the_lease_was_lost() {
    RelayLog recorder = live("100 CLAIMED 1 1 5", "101 SENDING 1 a", "102 DB_ACKED 1 a");
    RelayLog late = live("110 CLAIMED 1 1 5", "111 SENDING 1 a", "112 DB_ACKED 1 ");
    RelayLog stale =
        live("110 CLAIMED 1 1 5", "111 SENDING 1 a", "112 LEASE_LOST 1 1", "113 DB_ACKED 1 ");

    assertThat(Duplicates.explain(List.of(recorder, late), Map.of("a", 2)).sentAfterRecorded)
        .containsExactly("a by live");
    Duplicates withLeaseLost = Duplicates.explain(List.of(recorder, stale), Map.of("a", 2));
    assertThat(withLeaseLost.sentAfterRecorded).isEmpty();
    assertThat(withLeaseLost.leaseLost).isEqualTo(1);
  }

  private static RelayLog live(String... lines) {
    return new RelayLog("live", false, List.of(lines));
  }
}
