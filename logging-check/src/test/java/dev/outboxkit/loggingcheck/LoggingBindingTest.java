package dev.outboxkit.loggingcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * OutboxKit's log lines reach the application's logging whichever slf4j line it is on. Each test
 * starts {@link RelayLogsOnce} in a JVM of its own whose class path is an application's: the
 * OutboxKit jars, H2, and one binding with the slf4j-api it gets. The jars are those Maven resolved
 * for this module, which declares outboxkit-jdbc like an application (see its pom): the legacy
 * worlds get the slf4j-api that outboxkit-jdbc names, the slf4j 2 world the slf4j-api 2.x the
 * application declares itself. Each binding writes in a pattern of its own to stdout, so a line in
 * that pattern came through that binding; slf4j's no-operation fallback writes nothing.
 */
class LoggingBindingTest {
  private static final Path DIR = Path.of("target", "logging-check");
  private static final String RELAY_LINE =
      "dev.outboxkit.jdbc.OutboxRelay - [logging-check] relay configured: ";

  @Test
  void relay_logs_through_logback_1_2_on_slf4j_1_7() throws Exception {
    Path config =
        write(
            "logback.xml",
            "<configuration>\n"
                + "  <appender name=\"out\" class=\"ch.qos.logback.core.ConsoleAppender\">\n"
                + "    <encoder><pattern>logback-1.2 %level %logger - %msg%n</pattern></encoder>\n"
                + "  </appender>\n"
                + "  <root level=\"INFO\"><appender-ref ref=\"out\"/></root>\n"
                + "</configuration>\n");
    assertRelayLogsThrough(
        "logback-1.2",
        List.of("slf4j-api", "logback-classic", "logback-core"),
        List.of("-Dlogback.configurationFile=" + config.toAbsolutePath()),
        "logback-1.2 INFO ");
  }

  @Test
  void relay_logs_through_reload4j_on_slf4j_1_7() throws Exception {
    Path config =
        write(
            "log4j.properties",
            "log4j.rootLogger=INFO, out\n"
                + "log4j.appender.out=org.apache.log4j.ConsoleAppender\n"
                + "log4j.appender.out.layout=org.apache.log4j.PatternLayout\n"
                + "log4j.appender.out.layout.ConversionPattern=reload4j %p %c - %m%n\n");
    assertRelayLogsThrough(
        "reload4j",
        List.of("slf4j-api", "slf4j-reload4j", "reload4j"),
        List.of("-Dlog4j.configuration=" + config.toAbsolutePath().toUri()),
        "reload4j INFO ");
  }

  @Test
  void relay_logs_through_an_slf4j_2_provider_when_the_application_declares_slf4j_api_2()
      throws Exception {
    assertRelayLogsThrough(
        "slf4j-simple-2",
        List.of("slf4j-api-2", "slf4j-simple"),
        List.of(
            "-Dorg.slf4j.simpleLogger.logFile=System.out",
            "-Dorg.slf4j.simpleLogger.showThreadName=false",
            "-Dorg.slf4j.simpleLogger.levelInBrackets=true"),
        "[INFO] ");
  }

  /** Why the README tells applications on slf4j 2 to declare their slf4j-api 2.x themselves. */
  @Test
  void slf4j_2_provider_is_not_found_when_the_application_leaves_slf4j_api_at_1_7()
      throws Exception {
    Child child =
        run(
            "slf4j-simple-2-on-api-1.7",
            List.of("slf4j-api", "slf4j-simple"),
            List.of("-Dorg.slf4j.simpleLogger.logFile=System.out"));

    assertThat(child.stdout).as(child.describe()).noneMatch(l -> l.contains("relay configured"));
    assertThat(child.stderr).as(child.describe()).contains("no-operation (NOP)");
  }

  private static Path write(String name, String text) throws IOException {
    Files.createDirectories(DIR);
    return Files.writeString(DIR.resolve(name), text, StandardCharsets.UTF_8);
  }

  /**
   * Runs {@link RelayLogsOnce} with the binding's jars and options, and finds the relay's line in
   * the binding's pattern, which starts with {@code prefix}.
   */
  private static void assertRelayLogsThrough(
      String name, List<String> jars, List<String> options, String prefix) throws Exception {
    Child child = run(name, jars, options);
    assertThat(child.stdout).as(child.describe()).anyMatch(l -> l.startsWith(prefix + RELAY_LINE));
  }

  /** Runs {@link RelayLogsOnce} on the OutboxKit jars, H2 and the named jars; waits for its end. */
  private static Child run(String name, List<String> jars, List<String> options) throws Exception {
    List<String> path = new ArrayList<>();
    for (String jar : List.of("outboxkit-jdbc", "outboxkit-api", "h2")) {
      path.add(jar(jar));
    }
    for (String jar : jars) {
      path.add(jar(jar));
    }
    // The program's own class, alone: the test classes directory holds nothing else it loads.
    path.add(
        Path.of(RelayLogsOnce.class.getProtectionDomain().getCodeSource().getLocation().toURI())
            .toString());
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(String.join(File.pathSeparator, path));
    command.addAll(options);
    command.add(RelayLogsOnce.class.getName());
    Files.createDirectories(DIR);
    Path out = DIR.resolve(name + ".out");
    Path err = DIR.resolve(name + ".log");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    if (!p.waitFor(2, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError(name + " did not end within 2 minutes");
    }
    Child child =
        new Child(
            command,
            Files.readAllLines(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    assertThat(p.exitValue()).as(child.describe()).isZero();
    assertThat(child.stdout).as(child.describe()).contains("built");
    return child;
  }

  private static String jar(String name) {
    String path = System.getProperty("jar." + name);
    assertThat(path).as("system property jar." + name + " (set by the pom)").isNotBlank();
    assertThat(Path.of(path)).as(name).exists();
    return path;
  }

  private static final class Child {
    final List<String> command;
    final List<String> stdout;
    final String stderr;

    Child(List<String> command, List<String> stdout, String stderr) {
      this.command = command;
      this.stdout = stdout;
      this.stderr = stderr;
    }

    String describe() {
      return String.join(" ", command)
          + "\nstdout:\n"
          + String.join("\n", stdout)
          + "\nstderr:\n"
          + stderr;
    }
  }
}
