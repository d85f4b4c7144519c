package dev.outboxkit.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Maven command of the README, the guides and the modules' READMEs names things the build
 * has: the modules of {@code -pl}, test classes matching each {@code -Dtest} pattern in those
 * modules, the class of {@code -Dexec.mainClass} (or, for {@code exec:java} without one, a module
 * that names its main class), the profiles of {@code -P}. A renamed module, test or class fails
 * here rather than in a newcomer's terminal. The commands are checked, not run: the two of the
 * README's first screen are what CI runs ({@code mvn -B verify}) and what {@code
 * OrderServiceDemoTest} runs (the demo's main class).
 */
class DocsCommandsTest {
  private static final Pattern INLINE = Pattern.compile("`(mvn [^`\\n]+)`");
  private static final Pattern LINE = Pattern.compile("(?m)^\\s*(mvn .+)$");
  private static final Pattern PROJECT_VERSION =
      Pattern.compile("<artifactId>outboxkit-parent</artifactId>\\s*<version>([^<]+)</version>");
  private static final Pattern DEPENDENCY_VERSION =
      Pattern.compile(
          "<groupId>dev\\.outboxkit</groupId>\\s*<artifactId>[^<]+</artifactId>\\s*<version>([^<$]+)</version>");
  private static final Pattern MAIN_CLASS =
      Pattern.compile("<(?:exec\\.)?mainClass>([^<$]+)</(?:exec\\.)?mainClass>");

  @Test
  void every_documented_maven_command_names_modules_tests_classes_and_profiles_that_exist()
      throws IOException {
    List<String> problems = new ArrayList<>();
    int checked = 0;
    for (Path file : Docs.markdownFiles()) {
      String text = Files.readString(file);
      List<String> commands = new ArrayList<>();
      for (Pattern p : new Pattern[] {INLINE, LINE}) {
        Matcher m = p.matcher(text);
        while (m.find()) {
          commands.add(m.group(1).replaceAll("\\s+#.*$", "").replace("`", "").strip());
        }
      }
      for (String command : commands) {
        checked++;
        for (String problem : problems(command)) {
          problems.add(Docs.ROOT.relativize(file) + ": " + command + "\n    " + problem);
        }
      }
    }
    assertThat(checked).as("commands found").isGreaterThan(15);
    assertThat(problems).as("documented commands that would fail").isEmpty();
  }

  @Test
  void every_documented_dependency_on_outboxkit_names_the_projects_version() throws IOException {
    Matcher own = PROJECT_VERSION.matcher(Files.readString(Docs.ROOT.resolve("pom.xml")));
    assertThat(own.find()).as("the root POM's version").isTrue();
    List<String> stale = new ArrayList<>();
    int found = 0;
    for (Path file : Docs.markdownFiles()) {
      Matcher m = DEPENDENCY_VERSION.matcher(Files.readString(file));
      while (m.find()) {
        found++;
        if (!m.group(1).equals(own.group(1))) {
          stale.add(Docs.ROOT.relativize(file) + ": " + m.group(1));
        }
      }
    }
    assertThat(found).as("documented dependencies on dev.outboxkit").isPositive();
    assertThat(stale).as("versions other than the project's %s", own.group(1)).isEmpty();
  }

  private static List<String> problems(String command) throws IOException {
    List<String> args = arguments(command);
    List<String> problems = new ArrayList<>();
    List<Path> modules = new ArrayList<>();
    String mainClass = null;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("-pl") && i + 1 < args.size()) {
        for (String module : args.get(++i).split(",")) {
          Path dir = Docs.ROOT.resolve(module);
          if (Files.isRegularFile(dir.resolve("pom.xml"))) {
            modules.add(dir);
          } else {
            problems.add("no module " + module);
          }
        }
      } else if (a.startsWith("-Dexec.mainClass=")) {
        mainClass = a.substring("-Dexec.mainClass=".length());
      } else if (a.startsWith("-P")) {
        String profiles = a.length() > 2 ? a.substring(2) : args.get(++i);
        for (String profile : profiles.split(",")) {
          if (!profileExists(profile.replaceFirst("^[!-]", ""))) {
            problems.add("no profile " + profile);
          }
        }
      }
    }
    List<Path> scope = modules.isEmpty() ? Docs.modules() : modules;
    for (String a : args) {
      if (a.startsWith("-Dtest=")) {
        for (String pattern : a.substring("-Dtest=".length()).split(",")) {
          if (!pattern.startsWith("!") && !testClassMatches(scope, pattern)) {
            problems.add("no test class matches " + pattern + " in " + names(scope));
          }
        }
      }
    }
    if (mainClass == null && args.contains("exec:java")) {
      // The module's own: the exec.mainClass property or the exec plugin's mainClass.
      for (Path module : modules) {
        Matcher named = MAIN_CLASS.matcher(Files.readString(module.resolve("pom.xml")));
        if (named.find()) {
          mainClass = named.group(1).strip();
        } else {
          problems.add("exec:java, but " + module.getFileName() + " names no main class");
        }
      }
    }
    if (mainClass != null && !mainClass.startsWith("${")) {
      String source = mainClass.replace('.', '/') + ".java";
      if (scope.stream().noneMatch(m -> Files.exists(m.resolve("src/main/java").resolve(source)))) {
        problems.add("no class " + mainClass + " in " + names(scope));
      }
    }
    return problems;
  }

  /** Shell words: split at blanks, quotes removed. */
  private static List<String> arguments(String command) {
    List<String> args = new ArrayList<>();
    Matcher m = Pattern.compile("(?:[^\\s'\"]+|'[^']*'|\"[^\"]*\")+").matcher(command);
    while (m.find()) {
      args.add(m.group().replaceAll("['\"]", ""));
    }
    return args;
  }

  private static boolean testClassMatches(List<Path> modules, String pattern) throws IOException {
    String simpleName = pattern.replaceFirst("#.*$", "");
    Pattern glob = Pattern.compile(simpleName.replace(".", "\\.").replace("*", "[A-Za-z0-9_$]*"));
    for (Path module : modules) {
      Path tests = module.resolve("src/test/java");
      if (!Files.isDirectory(tests)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(tests)) {
        if (files
            .map(p -> p.getFileName().toString())
            .filter(n -> n.endsWith(".java"))
            .anyMatch(n -> glob.matcher(n.substring(0, n.length() - 5)).matches())) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean profileExists(String id) throws IOException {
    for (Path module : modulesAndRoot()) {
      if (Files.readString(module.resolve("pom.xml")).contains("<id>" + id + "</id>")) {
        return true;
      }
    }
    return false;
  }

  private static List<Path> modulesAndRoot() throws IOException {
    List<Path> all = new ArrayList<>(Docs.modules());
    all.add(Docs.ROOT);
    return all;
  }

  private static String names(List<Path> modules) {
    return modules.stream().map(m -> m.getFileName().toString()).collect(Collectors.joining(","));
  }
}
