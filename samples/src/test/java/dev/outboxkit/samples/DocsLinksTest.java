package dev.outboxkit.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README and the guides in {@code docs/} link to each other and to the repository's files:
 * every relative link must name a file that exists and, with a {@code #fragment}, a heading of that
 * file (GitHub's anchors: lower case, spaces to hyphens, other punctuation dropped, {@code -1},
 * {@code -2} for repeated headings). Links inside code are not links; external links are not
 * fetched.
 */
class DocsLinksTest {
  private static final Path ROOT = Docs.ROOT;
  private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`\\n]*(?:\\n[^`\\n]+)*?`");
  private static final Pattern LINK =
      Pattern.compile(
          "!?\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern EXTERNAL = Pattern.compile("^[a-z][a-z0-9+.-]*:.*");

  private final Map<Path, Set<String>> anchors = new HashMap<>();

  @Test
  void every_relative_link_of_the_readme_and_the_guides_resolves() throws IOException {
    List<Path> files = Docs.markdownFiles();
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path file : files) {
      String prose = outsideCode(Files.readString(file));
      Matcher m = LINK.matcher(prose);
      while (m.find()) {
        checked++;
        String problem = problem(file, m.group(1));
        if (problem != null) {
          int line = (int) prose.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
          broken.add(ROOT.relativize(file) + ":" + line + ": " + m.group(1) + " -> " + problem);
        }
      }
    }

    assertThat(checked).as("links found").isGreaterThan(50);
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void anchors_follow_githubs_rules() {
    assertThat(slug("Event lifecycle: cancel, supersede, versions, uncertain sends, priority"))
        .isEqualTo("event-lifecycle-cancel-supersede-versions-uncertain-sends-priority");
    assertThat(slug("Relay: `OutboxRelay.builder(dataSource, transport)`"))
        .isEqualTo("relay-outboxrelaybuilderdatasource-transport");
    assertThat(slug("Way back: CDC → relay (PostgreSQL)"))
        .isEqualTo("way-back-cdc--relay-postgresql");
  }

  /** Why a link does not resolve, or null. */
  private String problem(Path from, String target) {
    if (EXTERNAL.matcher(target).matches()) {
      return null;
    }
    int hash = target.indexOf('#');
    String path =
        URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
    Path file = path.isEmpty() ? from : from.getParent().resolve(path).normalize();
    if (!file.startsWith(ROOT)) {
      return "outside the repository";
    }
    if (!Files.exists(file)) {
      return "no such file";
    }
    if (hash < 0) {
      return null;
    }
    String fragment = target.substring(hash + 1);
    if (!file.toString().endsWith(".md")) {
      return null; // a line anchor into source, say: GitHub's to resolve
    }
    return anchorsOf(file).contains(fragment) ? null : "no heading with anchor #" + fragment;
  }

  private Set<String> anchorsOf(Path file) {
    return anchors.computeIfAbsent(
        file,
        f -> {
          Map<String, Integer> seen = new HashMap<>();
          Set<String> result = new HashSet<>();
          try {
            for (String line : outsideFences(Files.readString(f)).split("\n", -1)) {
              Matcher h = HEADING.matcher(line);
              if (h.matches()) {
                String base = slug(h.group(2));
                int n = seen.merge(base, 1, Integer::sum) - 1;
                result.add(n == 0 ? base : base + "-" + n);
              }
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          return result;
        });
  }

  /** GitHub's heading anchor: lower case, links as their text, punctuation but - and _ dropped. */
  static String slug(String heading) {
    String s = heading.strip().toLowerCase(Locale.ROOT);
    s = s.replaceAll("<[^>]+>", "");
    s = s.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
    s = s.replaceAll("[^\\p{L}\\p{N}_\\- ]", "");
    return s.replace(' ', '-');
  }

  /** The text with fenced code blocks and inline code blanked, line numbers kept. */
  private static String outsideCode(String text) {
    Matcher m = INLINE_CODE.matcher(outsideFences(text));
    StringBuffer blanked = new StringBuffer(text.length());
    while (m.find()) {
      m.appendReplacement(blanked, Matcher.quoteReplacement(m.group().replaceAll("[^\\n]", " ")));
    }
    return m.appendTail(blanked).toString();
  }

  /** The text with fenced code blocks blanked, line numbers kept. */
  private static String outsideFences(String text) {
    StringBuilder out = new StringBuilder(text.length());
    boolean fenced = false;
    for (String line : text.split("\n", -1)) {
      if (FENCE.matcher(line).find()) {
        fenced = !fenced;
        out.append('\n');
        continue;
      }
      out.append(fenced ? "" : line).append('\n');
    }
    return out.toString();
  }
}
