package dev.outboxkit.samples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** The project's documentation as the docs checks read it: its files and where they live. */
final class Docs {
  /** The repository's root: the tests run in the samples module's directory. */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  private Docs() {}

  /** The README, the guides in {@code docs/}, and each module's README. */
  static List<Path> markdownFiles() throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    for (Path module : modules()) {
      if (Files.exists(module.resolve("README.md"))) {
        files.add(module.resolve("README.md"));
      }
    }
    return files;
  }

  /** The directories of the build's modules (those with a pom.xml below the root). */
  static List<Path> modules() throws IOException {
    try (Stream<Path> dirs = Files.list(ROOT)) {
      return dirs.filter(d -> Files.isRegularFile(d.resolve("pom.xml")))
          .sorted()
          .collect(Collectors.toList());
    }
  }
}
