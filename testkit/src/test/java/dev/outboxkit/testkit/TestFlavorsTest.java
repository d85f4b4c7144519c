package dev.outboxkit.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TestFlavorsTest {
  @Test
  void an_unset_or_blank_property_runs_every_flavour() {
    assertThat(TestFlavors.wanted("")).containsExactly(Flavor.values());
    assertThat(TestFlavors.wanted("  ")).containsExactly(Flavor.values());
  }

  @Test
  void the_property_names_flavours_in_any_case_and_spacing() {
    assertThat(TestFlavors.wanted("h2, Postgres")).containsExactly(Flavor.POSTGRES, Flavor.H2);
  }

  @Test
  void an_unknown_flavour_is_refused_with_the_known_ones() {
    assertThatThrownBy(() -> TestFlavors.wanted("H2,ORACLE"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "outboxkit.test.flavors names an unknown flavour 'ORACLE': use a comma-separated list"
                + " of [POSTGRES, MYSQL, MARIADB, H2]");
  }
}
