package dev.outboxkit.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every {@code java} code block of the README, the guides in {@code docs/} and the modules' READMEs
 * compiles against the library as it is now, so the docs cannot drift from the code.
 *
 * <p>A block is a fragment: statements, or whole classes. What it takes for granted (a {@code
 * dataSource}, a {@code transport}, the application's own {@code insertOrder}, an import that the
 * common ones below would make ambiguous) is declared in an HTML comment right above the block,
 * which GitHub does not show:
 *
 * <pre>{@code
 * <!-- compiled with: DataSource dataSource; Transport transport; -->
 * }</pre>
 *
 * Those declarations become members of an abstract class; statements become the body of a method of
 * it that may throw anything, classes become classes nested in it. Lines of the comment that start
 * with {@code import} are imports.
 */
class DocsCodeTest {
  private static final Pattern JAVA_BLOCK =
      Pattern.compile(
          "(?:<!--\\s*compiled with:(.*?)-->\\s*\\n)?^```java\\n(.*?)^```",
          Pattern.DOTALL | Pattern.MULTILINE);
  private static final Pattern CLASS_START =
      Pattern.compile(
          "^\\s*(?:(?:public|abstract|final|static)\\s+)*(?:class|record|interface)\\s");

  /** What every block may use without saying: the library's packages and the JDK's usual ones. */
  private static final String COMMON_IMPORTS =
      String.join(
          "\n",
          "import dev.outboxkit.*;",
          "import dev.outboxkit.jdbc.*;",
          "import dev.outboxkit.jdbc.dialect.*;",
          "import dev.outboxkit.http.*;",
          "import dev.outboxkit.kafka.*;",
          "import dev.outboxkit.micrometer.*;",
          "import dev.outboxkit.testing.*;",
          "import dev.outboxkit.testing.jdbc.*;",
          "import dev.outboxkit.example.derby.*;",
          "import java.sql.*;",
          "import javax.sql.*;",
          "import java.time.*;",
          "import java.util.*;",
          "import java.util.function.*;");

  @Test
  void every_java_block_of_the_readme_and_the_guides_compiles() throws IOException {
    List<Snippet> snippets = new ArrayList<>();
    for (Path file : Docs.markdownFiles()) {
      String text = Files.readString(file);
      Matcher m = JAVA_BLOCK.matcher(text);
      while (m.find()) {
        int line = lineOf(text, m.start(2));
        snippets.add(new Snippet(Docs.ROOT.relativize(file), line, m.group(1), m.group(2)));
      }
    }
    assertThat(snippets).as("java blocks found").hasSizeGreaterThan(10);

    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path out = Files.createDirectories(Path.of("target", "docs-snippets"));
    List<String> options =
        List.of(
            "-classpath",
            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
            "-d",
            out.toString(),
            "-proc:none",
            "-Xlint:none");
    List<JavaFileObject> units =
        snippets.stream().map(Snippet::source).collect(Collectors.toList());
    boolean compiled = javac.getTask(null, null, diagnostics, options, null, units).call();

    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        Snippet s = ((Source) d.getSource()).snippet;
        errors.add(
            s.where((int) d.getLineNumber())
                + ": "
                + d.getMessage(Locale.ROOT).replaceAll("\\s*\\n\\s*", "; "));
      }
    }
    assertThat(errors).as("compile errors of the docs' java blocks").isEmpty();
    assertThat(compiled).isTrue();
  }

  private static int lineOf(String text, int offset) {
    return (int) text.substring(0, offset).chars().filter(c -> c == '\n').count() + 1;
  }

  /** One block: where it is, what its comment declares, its code. */
  private static final class Snippet {
    final Path file;
    final int firstLine;
    final List<String> imports = new ArrayList<>();
    final List<String> declarations = new ArrayList<>();
    final String code;
    final String className;
    int codeStartsAtLine;

    Snippet(Path file, int firstLine, String context, String code) {
      this.file = file;
      this.firstLine = firstLine;
      this.code = code;
      this.className =
          "Snippet_"
              + file.getFileName().toString().replaceAll("[^A-Za-z0-9]", "_")
              + "_"
              + firstLine;
      if (context != null) {
        for (String line : context.strip().split("\n")) {
          (line.strip().startsWith("import ") ? imports : declarations).add(line.strip());
        }
      }
    }

    /** The compilation unit: imports, then the class with the declarations and the code. */
    JavaFileObject source() {
      StringBuilder unit = new StringBuilder();
      unit.append(COMMON_IMPORTS).append('\n');
      imports.forEach(i -> unit.append(i).append('\n'));
      unit.append("abstract class ").append(className).append(" {\n");
      declarations.forEach(d -> unit.append(d).append('\n'));
      boolean classes = CLASS_START.matcher(code.replaceAll("(?m)^\\s*//.*\\n", "")).find();
      if (!classes) {
        unit.append("void snippet() throws Exception {\n");
      }
      codeStartsAtLine = (int) unit.chars().filter(c -> c == '\n').count() + 1;
      unit.append(code);
      unit.append(classes ? "}\n" : "}\n}\n");
      return new Source(this, unit.toString());
    }

    /** The markdown position of a line of the compilation unit, or of the comment above. */
    String where(int unitLine) {
      int inBlock = unitLine - codeStartsAtLine;
      return inBlock >= 0
          ? file + ":" + (firstLine + inBlock)
          : file + ":" + firstLine + " (in its 'compiled with' comment)";
    }
  }

  private static final class Source extends SimpleJavaFileObject {
    final Snippet snippet;
    final String text;

    Source(Snippet snippet, String text) {
      super(URI.create("string:///" + snippet.className + Kind.SOURCE.extension), Kind.SOURCE);
      this.snippet = snippet;
      this.text = text;
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return text;
    }
  }
}
