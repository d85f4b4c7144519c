package dev.outboxkit.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The flavours a suite runs on, for the {@code @MethodSource} of a JUnit {@code
 * ParameterizedClass}: those the suite names, narrowed by the system property {@value #PROPERTY}.
 */
public final class TestFlavors {
  /**
   * Comma-separated flavours to run, e.g. {@code -Doutboxkit.test.flavors=H2}; unset or blank runs
   * every flavour. It lets a build run one flavour of each suite, as CI's newest-JDK step runs the
   * in-memory H2 runs only (Surefire passes Maven's {@code -D} properties to the test JVM). A suite
   * left with none runs no test, so suites allow zero invocations.
   */
  public static final String PROPERTY = "outboxkit.test.flavors";

  private TestFlavors() {}

  /** Every flavour the property lets run. */
  public static List<Flavor> all() {
    return of(Flavor.values());
  }

  /** These flavours, less those the property leaves out. */
  public static List<Flavor> of(Flavor... flavors) {
    Set<Flavor> wanted = wanted(System.getProperty(PROPERTY, ""));
    List<Flavor> run = new ArrayList<>();
    for (Flavor flavor : flavors) {
      if (wanted.contains(flavor)) {
        run.add(flavor);
      }
    }
    return run;
  }

  static Set<Flavor> wanted(String property) {
    if (property.isBlank()) {
      return EnumSet.allOf(Flavor.class);
    }
    Set<Flavor> wanted = EnumSet.noneOf(Flavor.class);
    for (String name : property.split(",")) {
      try {
        wanted.add(Flavor.valueOf(name.trim().toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            PROPERTY
                + " names an unknown flavour '"
                + name.trim()
                + "': use a comma-separated list of "
                + Arrays.toString(Flavor.values()),
            e);
      }
    }
    return wanted;
  }
}
